import type { Agent } from '../../agent/agent.js';
import type { AgentOutput, PermissionDecision, StopReason } from '../../contracts/agent-output.js';
import { applyToolCallUpdate } from '../../agent/apply-tool-call-update.js';
import { rejectOnce } from '../../agent/reject-once.js';

/** One tool call of the turn, as the `prompt` tool reports it back to the host: the call's own event fields. */
export type ToolCallSummary = Pick<
  Extract<AgentOutput, { type: 'tool-call' }>,
  'toolCallId' | 'toolName' | 'title' | 'kind' | 'status' | 'input'
> & {
  /** Text the tool showed (its result, or why it failed). */
  output?: string;
};

/** What happened to a permission request inside the turn. */
export interface PermissionSummary {
  toolCallId: string;
  title: string;
  outcome: 'allowed' | 'rejected' | 'cancelled';
  /** `host` when the host answered through elicitation, `policy` when no one could be asked. */
  decidedBy: 'host' | 'policy';
  reason?: string;
}

export interface McpTurnResult {
  sessionId: string;
  text: string;
  stopReason: StopReason | 'error';
  toolCalls: ToolCallSummary[];
  permissions: PermissionSummary[];
  error?: { code: string; message: string };
}

/** A permission question put to the host; resolves to an option id, or `undefined` when declined. */
export type AskHost = (question: Extract<AgentOutput, { type: 'permission-request' }>, signal: AbortSignal) => Promise<string | undefined>;

export interface RunMcpTurnOptions {
  sessionId: string;
  prompt: string;
  signal: AbortSignal;
  /** Streams progress to the host; present only when the caller sent a progress token. */
  progress?: (message: string) => Promise<void>;
  /** Present when the host supports elicitation. */
  ask?: AskHost;
}

const POLICY_REASON =
  'the MCP host cannot be asked (no elicitation support), and policy rejects write and external tools; allow them with config tools.allow or the accept-edits mode';

/**
 * Runs one agent turn for an MCP `prompt` call: collects the text and a summary of the
 * tool calls, streams progress, and answers permission questions through the host or policy.
 */
export async function runMcpTurn(agent: Agent, options: RunMcpTurnOptions): Promise<McpTurnResult> {
  const { sessionId, signal } = options;
  const calls = new Map<string, ToolCallSummary>();
  const permissions: PermissionSummary[] = [];
  let text = '';
  let stopReason: McpTurnResult['stopReason'] = 'end_turn';
  let error: McpTurnResult['error'];
  // Progress notifications must not hold the turn up; they are sent in order, failures ignored.
  let progressChain = Promise.resolve();
  const report = (message: string) => {
    if (!options.progress) return;
    const send = options.progress;
    progressChain = progressChain.then(() => send(message)).catch(() => undefined);
  };

  // Each `prompt` call is one question with its own answer: a call made while the session's
  // turn runs waits its turn (queue) instead of steering the running one.
  const events = agent.process({ sessionId, prompt: [{ type: 'text', text: options.prompt }] }, { signal, sendMode: 'queue' });
  for await (const event of events) {
    switch (event.type) {
      case 'text-delta':
        text += event.text;
        report(event.text);
        break;
      case 'thought-delta':
        // Thinking reaches the host as progress (MCP has no thought channel), never in the answer.
        report(`[thinking] ${event.text}`);
        break;
      case 'tool-call': {
        calls.set(event.toolCallId, {
          toolCallId: event.toolCallId,
          toolName: event.toolName,
          title: event.title,
          kind: event.kind,
          status: event.status,
          input: event.input,
        });
        report(`[tool ${event.toolName}] ${event.title}`);
        break;
      }
      case 'tool-call-update': {
        const call = calls.get(event.toolCallId);
        if (!call) break;
        applyToolCallUpdate(call, event);
        if (event.status === 'completed' || event.status === 'failed') report(`[tool ${call.toolName}] ${event.status}`);
        break;
      }
      case 'permission-request':
        permissions.push(await decide(event, options));
        break;
      case 'turn-end':
        stopReason = event.stopReason;
        break;
      case 'notice':
        // A model call retried after a 429, a download's progress: the host hears it as progress.
        report(`[${event.level}] ${event.message}`);
        break;
      case 'error':
        stopReason = 'error';
        error = event.error;
        break;
      default:
        break;
    }
  }
  await progressChain;
  return {
    sessionId,
    text,
    stopReason: signal.aborted && stopReason !== 'error' ? 'cancelled' : stopReason,
    toolCalls: [...calls.values()],
    permissions,
    ...(error ? { error } : {}),
  };
}

async function decide(event: Extract<AgentOutput, { type: 'permission-request' }>, options: RunMcpTurnOptions): Promise<PermissionSummary> {
  const { signal } = options;
  const base = { toolCallId: event.toolCallId, title: event.title };
  const answer = (decision: PermissionDecision) => event.respond(decision);
  // The model is told the policy's reason; the host's own decline is a person's answer.
  const rejectWith = (summary: PermissionSummary): PermissionSummary => {
    answer(rejectOnce(event.options, summary.decidedBy === 'policy' ? summary.reason : undefined));
    return summary;
  };
  // The turn was cancelled while the host was being asked: whatever it answered no longer counts.
  const cancelled = (): PermissionSummary => {
    answer({ outcome: 'cancelled' });
    return { ...base, outcome: 'cancelled', decidedBy: 'host' };
  };
  if (!options.ask) return rejectWith({ ...base, outcome: 'rejected', decidedBy: 'policy', reason: POLICY_REASON });
  try {
    const optionId = await options.ask(event, signal);
    if (signal.aborted) return cancelled();
    const chosen = event.options.find((option) => option.optionId === optionId);
    if (!chosen) return rejectWith({ ...base, outcome: 'rejected', decidedBy: 'host', reason: 'declined by the host' });
    answer({ outcome: 'selected', optionId: chosen.optionId });
    return { ...base, outcome: chosen.kind.startsWith('allow') ? 'allowed' : 'rejected', decidedBy: 'host' };
  } catch (error) {
    if (signal.aborted) return cancelled();
    return rejectWith({ ...base, outcome: 'rejected', decidedBy: 'policy', reason: `elicitation failed (${(error as Error).message}); rejected by policy` });
  }
}
