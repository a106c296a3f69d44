import type { Agent, AgentCapabilities, ProcessOptions, PromptInput, SessionInfo, SessionOptions } from './agent.js';
import type { AgentExtension, TurnContext } from './agent-extension.js';
import type { AgentOutput, StopReason } from '../contracts/agent-output.js';
import type { PlaitedConfig, PlaitedConfigInput } from '../config/schema.js';
import { parseConfig } from '../config/parse-config.js';
import type { ResolvedLanguageModel } from '../model/resolve-model.js';
import type { Runtime } from '../tools/runtime.js';
import type { AnyTool } from '../tools/tool.js';
import type { StoreRegistry } from '../storage/store-registry.js';
import { LocalSessionManager, type LiveSession } from './session-manager.js';
import { matchesPattern, ToolPolicy, type PermissionContext } from './tool-policy.js';
import type { PermissionRuleStore } from '../storage/permission-rule-file.js';
import { createMemoryRuleStore } from './memory-rule-store.js';
import { permissionsCommand, PERMISSIONS_COMMAND } from './permissions-command.js';
import { promptText, toUserMessage } from './convert-prompt.js';
import { validateContentParts } from './validate-content-parts.js';
import { baseSystemPrompt, PLAN_MODE_PROMPT } from './system-prompt.js';
import { loadDefaultTools } from './default-tools.js';
import { hookList } from './agent-hooks.js';
import { errorInfo, noticeOf, runHooks, runHooksInOrder } from './agent-notices.js';
import { runQueuedTurn } from './run-queued-turn.js';
import { modelSource, type ModelOption } from './model-source.js';
import { messageTranscript } from './message-transcript.js';
import { createExitPlanModeTool } from './exit-plan-mode-tool.js';
import { createTaskTool } from './task-tool.js';
import { compactTurnHistory } from './compact-turn-history.js';
import { createSubagentRunner } from './run-subagent.js';
import type { TurnOverrides } from './turn-overrides.js';
import { createSessionModels } from './session-model.js';
import { memoizeUntilFailure } from './memoize-until-failure.js';
import { RunningToolCalls } from './running-tool-calls.js';
import { BackgroundProcesses } from '../tools/background-processes.js';
import { userMessageEvent } from './user-message-event.js';

export interface CreateAgentOptions {
  /** What `defineConfig` returns, or a parsed config; defaults are filled in (none: all defaults). */
  config?: PlaitedConfigInput | PlaitedConfig;
  /** Modules that add tools, prompt text and session hooks (MCP, skills, rules, memory, plans). */
  extensions?: AgentExtension[];
  /**
   * Extensions too heavy to build before a protocol's handshake (they open the index, the MCP
   * SDK, a model): loaded when the first session starts, placed before `extensions`, and then
   * isolated one by one like the others. A failed load is a notice and is retried later.
   */
  loadExtensions?: () => Promise<AgentExtension[]>;
  /** A model to use instead of resolving `config.agent.model` (tests, proxies, MCP sampling). */
  model?: ModelOption;
  /** Built-in tools; defaults to read_file, write_file, edit_file, glob, grep, bash, web_fetch. */
  tools?: AnyTool[];
  /** The runtime used when `process` is not given one. */
  runtime?: (cwd: string) => Runtime;
  stores?: StoreRegistry;
  /**
   * Where "always" answers are kept per project (the preset uses a file in the user's own
   * folder, see `src/storage/permission-rule-file.ts`); default: in memory, for this process.
   */
  permissionRules?: PermissionRuleStore;
}

/**
 * The protocol-agnostic core. Light to construct: the model, SQLite and the tools load
 * on first use, so an adapter can answer its protocol's handshake first.
 */
export function createAgent(options: CreateAgentOptions): Agent {
  const config = parseConfig(options.config);
  const policy = new ToolPolicy(config.tools);
  const projectRules = options.permissionRules ?? createMemoryRuleStore();
  const permissionsOf = (live: LiveSession): PermissionContext => ({ session: live.permissions, project: projectRules });
  const hooks = {
    onToolCall: hookList(config.hooks.onToolCall),
    onToolResult: hookList(config.hooks.onToolResult),
    onTurnEnd: hookList(config.hooks.onTurnEnd),
  };
  const listeners = new Set<(event: AgentOutput) => void>();
  /** Sessions whose slash commands were announced (the agent's own ride along with the extensions'). */
  const announced = new Set<string>();
  /**
   * Sessions created by this process: they are told of `/permissions` even without extension
   * commands. A loaded or resumed one hears of it with the extensions' commands only, so a resume
   * stays a state snapshot (its client kept the list).
   */
  const fresh = new Set<string>();
  const publish = (event: AgentOutput) => {
    if (event.type === 'commands') announced.add(event.sessionId);
    const out = event.type === 'commands' ? { ...event, commands: withBuiltinCommands(event.commands) } : event;
    for (const listener of listeners) listener(out);
  };
  let builtins: Promise<AnyTool[]> | undefined;
  let managerPromise: Promise<LocalSessionManager> | undefined;
  let stopped = false;
  /** Stores this agent opened itself (injected ones belong to the caller). */
  let ownStores: StoreRegistry | undefined;

  const runningCalls = new RunningToolCalls();
  // Background commands outlive their turn (their events go to subscribers) and stop with their session.
  const background = new BackgroundProcesses({ publish });
  const release = async (id: string) => {
    runningCalls.forget(id);
    await background.stopSession(id);
  };
  const model = modelSource(config, options.model);
  const sessionModel = createSessionModels(config, model);

  const extensions = [...(options.extensions ?? [])];

  const loadLate = options.loadExtensions ? memoizeUntilFailure(options.loadExtensions) : undefined;
  let lateLoaded = !loadLate;
  /** Makes sure the late extensions are in `extensions` before any hook runs for `sessionId`. */
  const ensureExtensions = async (sessionId: string, emit: (event: AgentOutput) => void): Promise<void> => {
    if (lateLoaded || !loadLate) return;
    try {
      const loaded = await loadLate();
      if (!lateLoaded) extensions.unshift(...loaded);
      lateLoaded = true;
    } catch (error) {
      emit(noticeOf(sessionId, 'extensions', 'load', error));
    }
  };

  const manager = () =>
    (managerPromise ??= (async () => {
      const stores = options.stores ?? (ownStores = await openStores(config));
      return new LocalSessionManager(stores, config.agent.defaultMode, {
        onStart: async (session) => {
          await ensureExtensions(session.sessionId, publish);
          await runHooks(extensions, 'onSessionStart', (ext) => ext.onSessionStart?.(session, publish), publish, session.sessionId);
          if (fresh.delete(session.sessionId) && !announced.has(session.sessionId)) publish({ type: 'commands', sessionId: session.sessionId, commands: [] });
        },
        onClose: (sessionId) => {
          announced.delete(sessionId);
          fresh.delete(sessionId);
          return runHooks(extensions, 'onSessionClose', (ext) => ext.onSessionClose?.(sessionId), publish, sessionId);
        },
      });
    })());

  const builtinTools = () => (builtins ??= options.tools ? Promise.resolve(options.tools) : loadDefaultTools(config));

  const localRuntime = async (cwd: string): Promise<Runtime> => {
    if (options.runtime) return options.runtime(cwd);
    const { createLocalRuntime } = await import('../tools/local-runtime.js');
    return createLocalRuntime(cwd);
  };

  const sessions = {
    create: async (o: Parameters<Agent['sessions']['create']>[0]) => {
      const info = await (await manager()).create(o);
      fresh.add(info.sessionId);
      return info;
    },
    fork: async (id: string, o: Parameters<Agent['sessions']['fork']>[1]) => {
      const info = await (await manager()).fork(id, o);
      fresh.add(info.sessionId);
      return info;
    },
    get: async (id: string, cwd?: string) => (await manager()).get(id, cwd),
    list: async (o?: { cwd?: string }) => (await manager()).list(o),
    activate: async (id: string, cwd?: string) => (await (await manager()).open(id, cwd)).info,
    history: async (id: string, cwd?: string) => (await manager()).history(id, cwd),
    setMode: async (id: string, mode: SessionInfo['mode']) => {
      await (await manager()).setMode(id, mode);
      publish({ type: 'mode-change', sessionId: id, modeId: mode });
    },
    setOptions: async (id: string, o: SessionOptions) => (await manager()).setOptions(id, o),
    close: (id: string) => release(id).then(async () => (await manager()).close(id)),
    delete: (id: string) => release(id).then(async () => (await manager()).delete(id)),
  };

  const exitPlanMode = createExitPlanModeTool({ setMode: sessions.setMode });
  const runSubagent = createSubagentRunner({
    config,
    manager,
    runTurn: (live, input, signal, runtime, overrides) => runQueued(live, input, { runtime }, signal, overrides, true),
  });
  const taskTool =
    Object.keys(config.agents).length > 0
      ? createTaskTool({ agents: config.agents, maxParallel: config.agent.maxParallelSubagents, run: runSubagent })
      : undefined;

  async function toolsFor(live: LiveSession, context: TurnContext, overrides?: TurnOverrides): Promise<AnyTool[]> {
    const seen = new Set<string>();
    const offered: AnyTool[] = [];
    const mode = live.info.mode;
    const add = (tool: AnyTool) => {
      if (seen.has(tool.name) || !policy.offers(tool, mode)) return;
      if (overrides?.tools && !overrides.tools.some((pattern) => matchesPattern(tool.name, pattern))) return;
      seen.add(tool.name);
      offered.push(tool);
    };
    for (const tool of await builtinTools()) add(tool);
    await runHooksInOrder(
      extensions,
      'tools',
      async (extension) => {
        for (const tool of (await extension.tools?.(context)) ?? []) add(tool);
      },
      context.emit,
      live.info.sessionId,
    );
    if (taskTool && !overrides?.child) add(taskTool);
    if (mode === 'plan' && !overrides?.child) add(exitPlanMode);
    return offered;
  }

  async function* runOneTurn(
    live: LiveSession,
    input: PromptInput,
    processOptions: ProcessOptions,
    signal: AbortSignal,
    overrides: TurnOverrides | undefined,
    announce: boolean,
  ): AsyncGenerator<AgentOutput> {
    const { sessionId } = live.info;
    const pending: AgentOutput[] = [];
    const notify = (event: AgentOutput) => pending.push(event);
    await ensureExtensions(sessionId, notify);
    const runtime = processOptions.runtime ?? (await localRuntime(live.info.cwd));
    const intent = promptText(input.prompt);
    const turnStart = live.messages.length;
    const context: TurnContext = {
      sessionId,
      cwd: live.info.cwd,
      additionalDirectories: live.info.options?.additionalDirectories ?? [],
      intent,
      signal,
      runtime,
      emit: notify,
      transcript: () => messageTranscript(live.messages.slice(turnStart)),
    };

    if (announce) yield userMessageEvent(input);
    const userMessage = toUserMessage(input.prompt);
    // Stored first: when the write fails (a full disk), memory does not hold what the store lacks.
    live.store.appendMessages(sessionId, [userMessage]);
    live.messages.push(userMessage);
    if (!live.info.title && intent) {
      // A title is cosmetic: a store error here must not become an unhandled rejection.
      void manager()
        .then((m) => m.setTitle(live, intent.split('\n')[0]!.slice(0, 80)))
        .catch(() => undefined);
    }

    let resolved: ResolvedLanguageModel;
    try {
      resolved = overrides?.model ?? (await sessionModel(live.info.options));
    } catch (error) {
      yield { type: 'error', sessionId, error: errorInfo(error, 'model_unavailable') } satisfies AgentOutput;
      return;
    }

    const prompts: string[] = [baseSystemPrompt({ cwd: live.info.cwd, custom: config.agent.systemPrompt })];
    if (overrides?.systemPrompt) prompts.push(overrides.systemPrompt);
    if (live.info.mode === 'plan') prompts.push(PLAN_MODE_PROMPT);
    await runHooksInOrder(
      extensions,
      'systemPrompt',
      async (extension) => {
        const part = await extension.systemPrompt?.(context);
        if (part) prompts.push(part);
      },
      notify,
      sessionId,
    );
    const system = prompts.join('\n\n');

    // Compaction: only what is sent to the model shrinks; the store keeps every message.
    yield* compactTurnHistory({ live, config: config.agent, model: resolved, system, signal });

    const { runTurn } = await import('./agent-loop.js');
    const turn = runTurn({
      sessionId,
      model: resolved,
      // A model picked mid-turn (ACP config option) takes over at the next step.
      modelForStep: overrides?.model ? undefined : () => sessionModel(live.info.options),
      system,
      messages: live.messages,
      tools: () => toolsFor(live, context, overrides),
      policy,
      mode: () => live.info.mode,
      permissions: permissionsOf(live),
      runtime,
      allowedRoots: [...config.agent.allowedRoots, ...(live.info.options?.additionalDirectories ?? [])],
      signal,
      maxSteps: config.agent.maxSteps,
      temperature: config.agent.temperature,
      maxOutputTokens: config.agent.maxOutputTokens,
      maxReplyBytes: config.agent.maxReplyBytes,
      toolCallFormat: config.agent.toolCallFormat,
      hooks,
      onHookError: (hook, error) => pending.push(noticeOf(sessionId, 'config hooks', hook, error)),
      onStepMessages: (messages) => {
        // Streamed text first: the messages that end the step then drop its draft in their transaction.
        live.running?.recorder?.flush();
        live.store.appendMessages(sessionId, messages);
        live.messages.push(...messages);
      },
      onToolResult: (call) => runHooksInOrder(extensions, 'onToolResult', (extension) => extension.onToolResult?.(context, call), notify, sessionId),
      steering: live.running?.steering,
      runningCalls,
      background,
      compact: async function* (step) {
        const compacted = yield* compactTurnHistory({ live, config: config.agent, model: resolved, system, signal, midTurn: step });
        return compacted ? [...live.messages] : undefined;
      },
    });

    let stopReason: StopReason | 'error' = 'end_turn';
    while (true) {
      while (pending.length > 0) yield pending.shift()!;
      const next = await turn.next();
      if (next.done) {
        stopReason = next.value.stopReason;
        break;
      }
      yield next.value;
    }
    while (pending.length > 0) yield pending.shift()!;
    if (stopReason === 'error') return;
    await runHooksInOrder(extensions, 'onTurnEnd', (extension) => extension.onTurnEnd?.(context, stopReason), notify, sessionId);
    for (const hook of hooks.onTurnEnd) {
      try {
        await hook({ sessionId, cwd: live.info.cwd, stopReason });
      } catch (error) {
        pending.push(noticeOf(sessionId, 'config hooks', 'onTurnEnd', error));
      }
    }
    while (pending.length > 0) yield pending.shift()!;
    yield { type: 'turn-end', sessionId, stopReason } satisfies AgentOutput;
  }

  /** Runs a turn after the session's previous ones, recording its events. */
  function runQueued(
    live: LiveSession,
    input: PromptInput,
    processOptions: ProcessOptions,
    signal: AbortSignal | undefined,
    overrides: TurnOverrides | undefined,
    announce: boolean,
  ): AsyncGenerator<AgentOutput> {
    return runQueuedTurn(live, signal, (turnSignal) => runOneTurn(live, input, processOptions, turnSignal, overrides, announce));
  }

  async function* process(input: PromptInput, processOptions: ProcessOptions = {}): AsyncGenerator<AgentOutput> {
    if (stopped) {
      yield { type: 'error', sessionId: input.sessionId, error: { code: 'agent_stopped', message: 'The agent is stopping' } };
      return;
    }
    // Checked before anything is stored: a saved undecodable attachment would fail every later turn.
    const problem = validateContentParts(input.prompt);
    if (problem) {
      yield { type: 'error', sessionId: input.sessionId, error: { code: 'invalid_input', message: `${problem.path} ${problem.reason}` } };
      return;
    }
    let live: LiveSession;
    try {
      live = await (await manager()).open(input.sessionId);
    } catch (error) {
      yield { type: 'error', sessionId: input.sessionId, error: errorInfo(error, 'session_not_found') };
      return;
    }
    await live.ready;
    try {
      yield* steerOrRun(live, input, processOptions);
    } catch (error) {
      // Fenced out: another process took the session over while this one was frozen. The turn
      // stops here; the next request on the session loads it again (see LocalSessionManager.open).
      if (!(error instanceof Error && 'code' in error && error.code === 'session_in_use')) throw error;
      yield { type: 'error', sessionId: input.sessionId, error: errorInfo(error, 'session_in_use') };
    }
  }

  async function* steerOrRun(live: LiveSession, input: PromptInput, processOptions: ProcessOptions): AsyncGenerator<AgentOutput> {
    const reply = permissionsCommand(promptText(input.prompt), { cwd: live.info.cwd, permissions: permissionsOf(live), config: config.tools });
    if (reply !== undefined) {
      // Answered by the agent itself: not part of the model's history.
      yield userMessageEvent(input);
      yield { type: 'text-delta', sessionId: input.sessionId, text: reply };
      yield { type: 'turn-end', sessionId: input.sessionId, stopReason: 'end_turn' };
      return;
    }

    // Steer: a message sent while a turn runs joins that turn before its next model step, and
    // supersedes the calls still waiting for approval. This stream ends once the turn took it.
    const sendMode = processOptions.sendMode ?? config.agent.sendMode;
    let announce = true;
    if (live.running && sendMode === 'steer') {
      const userEvent = userMessageEvent(input);
      const absorbing = live.running.steering.push(toUserMessage(input.prompt), userEvent, processOptions.signal);
      yield userEvent;
      const absorbed = await absorbing;
      if (absorbed || processOptions.signal?.aborted) {
        yield { type: 'turn-end', sessionId: input.sessionId, stopReason: absorbed ? 'end_turn' : 'cancelled' };
        return;
      }
      // The turn ended before another model step: the message gets a turn of its own.
      live.store.appendEvents(input.sessionId, [userEvent]);
      announce = false;
    }
    yield* runQueued(live, input, processOptions, processOptions.signal, undefined, announce);
  }

  const capabilities = (): AgentCapabilities => ({
    prompt: { image: true, audio: false, embeddedContext: true },
    loadSession: true,
    mcp: { http: true, sse: true },
    modes: ['default', 'accept-edits', 'plan'],
  });

  return {
    config,
    sessions,
    process,
    capabilities,
    cancelToolCall: (sessionId, toolCallId) => runningCalls.cancel(sessionId, toolCallId),
    backgroundWork: (sessionId) => background.running(sessionId),
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async tools(sessionId) {
      const live = await (await manager()).open(sessionId);
      await ensureExtensions(sessionId, publish);
      const runtime = await localRuntime(live.info.cwd);
      return toolsFor(live, {
        sessionId,
        cwd: live.info.cwd,
        intent: '',
        signal: new AbortController().signal,
        runtime,
        emit: publish,
      });
    },
    async start() {
      // Nothing to warm up eagerly: cold start matters more than the first prompt's latency.
    },
    async stop() {
      stopped = true;
      await background.stopAll();
      if (managerPromise) {
        const m = await managerPromise;
        for (const live of m.liveSessions()) {
          live.running?.controller.abort();
          await live.tail;
          await m.close(live.info.sessionId);
        }
      }
      for (const extension of extensions) await Promise.resolve(extension.close?.()).catch(() => undefined);
      ownStores?.closeAll();
    },
  };
}

/** The agent's own slash commands beside the extensions' (skills). */
function withBuiltinCommands(commands: Array<{ name: string; description: string; hint?: string }>) {
  return commands.some((command) => command.name === PERMISSIONS_COMMAND.name) ? commands : [...commands, PERMISSIONS_COMMAND];
}

async function openStores(config: PlaitedConfig): Promise<StoreRegistry> {
  const { StoreRegistry } = await import('../storage/store-registry.js');
  return new StoreRegistry({
    ...(config.agent.stateDb ? { path: config.agent.stateDb } : {}),
    ...(config.agent.sessionLease ? { leases: config.agent.sessionLease } : {}),
  });
}
