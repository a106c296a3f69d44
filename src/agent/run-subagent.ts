import type { AgentOutput, ContentPart } from '../contracts/agent-output.js';
import type { PromptInput } from './agent.js';
import type { LiveSession, LocalSessionManager } from './session-manager.js';
import type { TurnOverrides } from './turn-overrides.js';
import type { RunSubagent } from './task-tool.js';
import type { PlaitedConfig } from '../config/schema.js';
import type { ResolvedLanguageModel } from '../model/resolve-model.js';
import type { Runtime } from '../contracts/runtime.js';
import { forwardChildEvent } from './forward-child-event.js';
import { memoizeUntilFailure } from './memoize-until-failure.js';

/** Named sub-agents for the `task` tool (the `agents` config section's shape). */
export type SubagentDefinitions = PlaitedConfig['agents'];

/**
 * The `task` tool's engine: a child session (hidden from session lists, same cwd and mode
 * as the parent), one turn with the agent's tools and prompt, its tool calls forwarded
 * into the parent's stream as nested calls. The parent's signal cancels the child.
 */
export function createSubagentRunner(options: {
  agents: SubagentDefinitions;
  /** Resolves a sub-agent's model given by name (`provider:model`). */
  resolveModel(spec: string): Promise<ResolvedLanguageModel>;
  manager(): Promise<LocalSessionManager>;
  runTurn(
    live: LiveSession,
    input: PromptInput,
    signal: AbortSignal,
    runtime: Runtime,
    overrides: TurnOverrides,
  ): AsyncIterable<AgentOutput>;
}): RunSubagent {
  const models = new Map<string, () => Promise<ResolvedLanguageModel>>();
  const modelFor = (name: string, spec: NonNullable<SubagentDefinitions[string]['model']>) => {
    if (typeof spec !== 'string') return Promise.resolve(spec);
    let model = models.get(name);
    if (!model) {
      model = memoizeUntilFailure(() => options.resolveModel(spec));
      models.set(name, model);
    }
    return model();
  };

  return async (request, context) => {
    const manager = await options.manager();
    const parent = await manager.open(context.sessionId);
    const definition = request.agent ? options.agents[request.agent] : undefined;
    // The session's choices (its additional directories, the model picked for it) are the sub-agent's too; its definition's model wins.
    const child = await manager.create({
      cwd: parent.info.cwd,
      mode: parent.info.mode,
      parentSessionId: parent.info.sessionId,
      owner: parent.info.owner,
      ...(parent.info.options ? { options: parent.info.options } : {}),
    });
    try {
      const live = await manager.open(child.sessionId);
      // Its questions are asked in the parent's session, so "… for this session" answers are that session's, both ways.
      live.permissions = parent.permissions;
      await live.ready;
      const overrides: TurnOverrides = {
        child: true,
        parentSessionId: parent.info.sessionId,
        ...(definition?.tools ? { tools: definition.tools } : {}),
        ...(definition?.systemPrompt ? { systemPrompt: definition.systemPrompt } : {}),
        ...(definition?.model ? { model: await modelFor(request.agent!, definition.model) } : {}),
      };
      const prompt: ContentPart[] = [{ type: 'text', text: request.prompt }];
      let text = '';
      let failure: string | undefined;
      let stopReason = 'end_turn';
      for await (const event of options.runTurn(live, { sessionId: child.sessionId, prompt }, context.signal, context.runtime, overrides)) {
        if (event.type === 'text-delta') text += event.text;
        else if (event.type === 'error') failure = `${event.error.code}: ${event.error.message}`;
        else if (event.type === 'turn-end') stopReason = event.stopReason;
        const forwarded = forwardChildEvent(event, context.sessionId, context.toolCallId);
        if (forwarded) context.emit(forwarded);
      }
      const who = request.agent ? `Sub-agent "${request.agent}"` : 'Sub-agent';
      if (failure) return { content: [{ type: 'text', text: `${who} failed: ${failure}` }], isError: true, structured: { sessionId: child.sessionId, error: failure } };
      if (stopReason === 'cancelled') return { content: [{ type: 'text', text: `${who} was cancelled.` }], isError: true };
      return { content: [{ type: 'text', text: text.trim() || '(no answer)' }], structured: { sessionId: child.sessionId, stopReason, text } };
    } finally {
      await manager.close(child.sessionId);
    }
  };
}
