import type { AssistantModelMessage, ModelMessage, ToolModelMessage } from 'ai';
import type { AgentOutput, StopReason } from './agent-output.js';
import type { SessionMode } from './agent.js';
import type { ToolCallSummary } from './agent-extension.js';
import type { PermissionMemory, ToolPolicy } from './tool-policy.js';
import type { ResolvedLanguageModel } from '../model/resolve-model.js';
import type { Runtime } from '../tools/runtime.js';
import type { AnyTool, ToolResult } from '../tools/tool.js';
import { EventChannel } from './event-channel.js';
import { askPermission } from './ask-permission.js';
import { executeToolCall } from './execute-tool-call.js';
import { streamModelStep, type StepToolCall } from './stream-model-step.js';
import { toModelOutput } from './tool-result-output.js';

export interface TurnOptions {
  sessionId: string;
  model: ResolvedLanguageModel;
  system: string | undefined;
  /** The history sent to the model, ending with the new user message. */
  messages: ModelMessage[];
  /** Called before every model step: tools can change mid-turn (search_tools activates more). */
  tools(): Promise<AnyTool[]>;
  policy: ToolPolicy;
  mode(): SessionMode;
  permissions: PermissionMemory;
  runtime: Runtime;
  allowedRoots: readonly string[];
  signal: AbortSignal;
  maxSteps: number;
  temperature?: number;
  maxOutputTokens?: number;
  /** Messages produced by a finished step (assistant + tool results), for persistence. */
  onStepMessages?(messages: ModelMessage[]): void;
  onToolResult?(call: ToolCallSummary): Promise<void> | void;
  /** Messages that arrived while the turn ran and should steer it (injected before the next step). */
  takeSteering?(): ModelMessage[];
}

export interface TurnResult {
  stopReason: StopReason | 'error';
  usage: { inputTokens: number; outputTokens: number };
}

/**
 * One user turn: stream a model step, collect its tool calls, check policy and ask
 * permission, run the approved calls in parallel, feed results back, repeat until the
 * model stops or `maxSteps` is hit. A plain async generator: it pauses with its
 * consumer, and every await honours `signal`. A model failure ends the stream with an
 * `error` event; nothing is thrown.
 */
export async function* runTurn(options: TurnOptions): AsyncGenerator<AgentOutput, TurnResult> {
  const { sessionId, signal } = options;
  const messages = [...options.messages];
  const usage = { inputTokens: 0, outputTokens: 0 };

  for (let step = 1; ; step++) {
    const steering = options.takeSteering?.() ?? [];
    if (steering.length > 0) {
      messages.push(...steering);
      options.onStepMessages?.(steering);
    }

    const tools = await options.tools();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    const stepStream = streamModelStep({
      model: options.model,
      system: options.system,
      messages,
      tools,
      signal,
      temperature: options.temperature,
      maxOutputTokens: options.maxOutputTokens,
    });

    let outcome;
    while (true) {
      const next = await stepStream.next();
      if (next.done) {
        outcome = next.value;
        break;
      }
      yield { ...next.value, sessionId } as AgentOutput;
    }
    usage.inputTokens += outcome.usage.inputTokens;
    usage.outputTokens += outcome.usage.outputTokens;

    const assistant = assistantMessage(outcome.text, outcome.reasoning, outcome.toolCalls);
    if (outcome.error && !signal.aborted) {
      if (assistant) {
        messages.push(assistant);
        options.onStepMessages?.([assistant]);
      }
      yield { type: 'error', sessionId, error: outcome.error };
      return { stopReason: 'error', usage };
    }

    if (outcome.toolCalls.length === 0) {
      if (assistant) options.onStepMessages?.([assistant]);
      yield usageEvent(sessionId, usage);
      return { stopReason: signal.aborted ? 'cancelled' : outcome.stopReason, usage };
    }

    // Every tool call gets a result, even when cancelled: the history must stay valid for the next turn.
    for (const call of outcome.toolCalls) {
      const tool = byName.get(call.toolName);
      yield {
        type: 'tool-call',
        sessionId,
        toolCallId: call.toolCallId,
        toolName: call.toolName,
        title: titleOf(tool, call),
        kind: tool?.kind ?? kindOfRisk(tool),
        status: 'pending',
        input: call.input,
        locations: locationsOf(tool, call, options.runtime.cwd),
      };
    }

    const results = new Map<string, ToolResult>();
    const approved: Array<{ call: StepToolCall; tool: AnyTool; args: unknown }> = [];
    for (const call of outcome.toolCalls) {
      const prepared = prepareCall(call, byName);
      if ('error' in prepared) {
        results.set(call.toolCallId, { content: [{ type: 'text', text: prepared.error }], isError: true });
        continue;
      }
      const decision = options.policy.decide(prepared.tool, options.mode(), options.permissions);
      if (decision.action === 'refuse') {
        results.set(call.toolCallId, { content: [{ type: 'text', text: `Refused: ${decision.reason}.` }], isError: true });
        continue;
      }
      if (decision.action === 'ask' && !signal.aborted) {
        const asked = askPermission({ sessionId, call, tool: prepared.tool, signal, permissions: options.permissions });
        yield asked.event;
        const answer = await asked.answer;
        if (answer !== 'allow') {
          const text =
            answer === 'cancelled' ? 'Cancelled before it ran.' : 'The user rejected this tool call. Do not retry it unchanged.';
          results.set(call.toolCallId, { content: [{ type: 'text', text }], isError: true });
          continue;
        }
      }
      approved.push({ call, tool: prepared.tool, args: prepared.args });
    }

    // Run the approved calls in parallel; their progress events interleave through one channel.
    const channel = new EventChannel<AgentOutput>();
    const running = Promise.all(
      approved.map(async ({ call, tool, args }) => {
        if (signal.aborted) {
          results.set(call.toolCallId, { content: [{ type: 'text', text: 'Cancelled before it ran.' }], isError: true });
          return;
        }
        channel.push({ type: 'tool-call-update', sessionId, toolCallId: call.toolCallId, status: 'in_progress' });
        const result = await executeToolCall({
          tool,
          args,
          toolCallId: call.toolCallId,
          sessionId,
          runtime: options.runtime,
          allowedRoots: options.allowedRoots,
          signal,
          push: (event) => channel.push(event),
        });
        results.set(call.toolCallId, result);
      }),
    ).finally(() => channel.close());
    for await (const event of channel) yield event;
    await running;

    const toolMessage: ToolModelMessage = { role: 'tool', content: [] };
    for (const call of outcome.toolCalls) {
      const result = results.get(call.toolCallId) ?? {
        content: [{ type: 'text' as const, text: 'Cancelled before it ran.' }],
        isError: true,
      };
      const tool = byName.get(call.toolName);
      yield {
        type: 'tool-call-update',
        sessionId,
        toolCallId: call.toolCallId,
        status: result.isError ? 'failed' : 'completed',
        content: result.display ?? result.content.flatMap((part) => (part.type === 'text' ? [{ type: 'text' as const, text: part.text }] : [])),
        ...(result.locations ? { locations: result.locations } : {}),
        output: result.structured ?? textOf(result),
      };
      toolMessage.content.push({
        type: 'tool-result',
        toolCallId: call.toolCallId,
        toolName: call.toolName,
        output: toModelOutput(result),
      });
      if (tool && options.onToolResult) {
        await options.onToolResult({
          toolName: call.toolName,
          args: call.input,
          result,
          locations: result.locations ?? locationsOf(tool, call, options.runtime.cwd) ?? [],
        });
      }
    }
    const stepMessages: ModelMessage[] = assistant ? [assistant, toolMessage] : [toolMessage];
    messages.push(...stepMessages);
    options.onStepMessages?.(stepMessages);

    if (signal.aborted) {
      yield usageEvent(sessionId, usage);
      return { stopReason: 'cancelled', usage };
    }
    if (step >= options.maxSteps) {
      yield usageEvent(sessionId, usage);
      return { stopReason: 'max_turn_requests', usage };
    }
  }
}

function prepareCall(
  call: StepToolCall,
  byName: Map<string, AnyTool>,
): { tool: AnyTool; args: unknown } | { error: string } {
  const tool = byName.get(call.toolName);
  if (!tool) {
    const names = [...byName.keys()].join(', ');
    return { error: `Unknown tool "${call.toolName}". Available tools: ${names || '(none)'}.` };
  }
  if (call.invalidReason) return { error: `Invalid arguments for "${call.toolName}": ${call.invalidReason}` };
  const validated = tool.validate(call.input);
  if (!validated.ok) return { error: `Invalid arguments for "${call.toolName}":\n${validated.error}` };
  return { tool, args: validated.value };
}

function assistantMessage(
  text: string,
  reasoning: string,
  toolCalls: readonly StepToolCall[],
): AssistantModelMessage | undefined {
  const content: Exclude<AssistantModelMessage['content'], string> = [];
  if (reasoning) content.push({ type: 'reasoning', text: reasoning });
  if (text) content.push({ type: 'text', text });
  for (const call of toolCalls) {
    content.push({ type: 'tool-call', toolCallId: call.toolCallId, toolName: call.toolName, input: call.input });
  }
  return content.length > 0 ? { role: 'assistant', content } : undefined;
}

function titleOf(tool: AnyTool | undefined, call: StepToolCall): string {
  if (!tool) return call.toolName;
  try {
    return tool.title?.(call.input) ?? tool.name;
  } catch {
    return tool.name;
  }
}

function locationsOf(tool: AnyTool | undefined, call: StepToolCall, cwd: string) {
  if (!tool?.locations) return undefined;
  try {
    return tool.locations(call.input, cwd);
  } catch {
    return undefined;
  }
}

function kindOfRisk(tool: AnyTool | undefined) {
  if (!tool) return 'other' as const;
  return tool.risk === 'read' ? ('read' as const) : tool.risk === 'write' ? ('edit' as const) : ('execute' as const);
}

function textOf(result: ToolResult): string {
  return result.content.map((part) => (part.type === 'text' ? part.text : `[${part.mimeType}]`)).join('\n');
}

function usageEvent(sessionId: string, usage: TurnResult['usage']): AgentOutput {
  return {
    type: 'usage',
    sessionId,
    inputTokens: usage.inputTokens,
    outputTokens: usage.outputTokens,
    totalTokens: usage.inputTokens + usage.outputTokens,
  };
}
