import type { Agent, AgentCapabilities, ProcessOptions, PromptInput, SessionInfo } from './agent.js';
import type { AgentExtension, TurnContext } from './agent-extension.js';
import type { AgentOutput, StopReason, StoredAgentOutput } from './agent-output.js';
import type { PlaitedConfig } from '../config/schema.js';
import type { ResolvedLanguageModel } from '../model/resolve-model.js';
import type { Runtime } from '../tools/runtime.js';
import type { AnyTool } from '../tools/tool.js';
import type { StoreRegistry } from '../storage/store-registry.js';
import { isStorable } from './agent-output.js';
import { LocalSessionManager, type LiveSession } from './session-manager.js';
import { ToolPolicy } from './tool-policy.js';
import { promptText, toUserMessage } from './convert-prompt.js';
import { baseSystemPrompt } from './system-prompt.js';

export interface CreateAgentOptions {
  config: PlaitedConfig;
  /** Modules that add tools, prompt text and session hooks (MCP, skills, rules, memory, plans). */
  extensions?: AgentExtension[];
  /** A model to use instead of resolving `config.agent.model` (tests, proxies, MCP sampling). */
  model?: ResolvedLanguageModel | (() => Promise<ResolvedLanguageModel>);
  /** Built-in tools; defaults to read_file, write_file, edit_file, glob, grep, bash. */
  tools?: AnyTool[];
  /** The runtime used when `process` is not given one. */
  runtime?: (cwd: string) => Runtime;
  stores?: StoreRegistry;
}

/**
 * The protocol-agnostic core. Light to construct: the model, SQLite and the tools load
 * on first use, so an adapter can answer its protocol's handshake first.
 */
export function createAgent(options: CreateAgentOptions): Agent {
  const { config } = options;
  const extensions = options.extensions ?? [];
  const policy = new ToolPolicy(config.tools);
  const listeners = new Set<(event: AgentOutput) => void>();
  const publish = (event: AgentOutput) => {
    for (const listener of listeners) listener(event);
  };
  let modelPromise: Promise<ResolvedLanguageModel> | undefined;
  let builtins: Promise<AnyTool[]> | undefined;
  let managerPromise: Promise<LocalSessionManager> | undefined;
  let stopped = false;
  /** Stores this agent opened itself (injected ones belong to the caller). */
  let ownStores: StoreRegistry | undefined;

  const manager = () =>
    (managerPromise ??= (async () => {
      const stores = options.stores ?? (ownStores = await openStores(config));
      return new LocalSessionManager(stores, config.agent.defaultMode, {
        onStart: (session) => runHooks(extensions, 'onSessionStart', (ext) => ext.onSessionStart?.(session, publish), publish, session.sessionId),
        onClose: (sessionId) => runHooks(extensions, 'onSessionClose', (ext) => ext.onSessionClose?.(sessionId), publish, sessionId),
      });
    })());

  const model = async (): Promise<ResolvedLanguageModel> => {
    if (typeof options.model === 'function') return options.model();
    if (options.model) return options.model;
    modelPromise ??= import('../model/resolve-model.js').then(({ resolveModel }) => resolveModel(config.agent));
    // A failed resolution is not cached: the user may fix the endpoint and retry.
    return modelPromise.catch((error: unknown) => {
      modelPromise = undefined;
      throw error;
    });
  };

  const builtinTools = () =>
    (builtins ??= options.tools
      ? Promise.resolve(options.tools)
      : import('../tools/builtin-tools.js').then(({ createBuiltinTools }) => createBuiltinTools({ bash: config.agent.bash })));

  const localRuntime = async (cwd: string): Promise<Runtime> => {
    if (options.runtime) return options.runtime(cwd);
    const { createLocalRuntime } = await import('../tools/local-runtime.js');
    return createLocalRuntime(cwd);
  };

  const sessions = {
    create: async (o: Parameters<Agent['sessions']['create']>[0]) => (await manager()).create(o),
    get: async (id: string, cwd?: string) => (await manager()).get(id, cwd),
    list: async (o?: { cwd?: string }) => (await manager()).list(o),
    history: async (id: string, cwd?: string) => (await manager()).history(id, cwd),
    setMode: async (id: string, mode: SessionInfo['mode']) => {
      await (await manager()).setMode(id, mode);
      publish({ type: 'mode-change', sessionId: id, modeId: mode });
    },
    close: async (id: string) => (await manager()).close(id),
    delete: async (id: string) => (await manager()).delete(id),
  };

  async function toolsFor(live: LiveSession, context: TurnContext): Promise<AnyTool[]> {
    const seen = new Set<string>();
    const offered: AnyTool[] = [];
    const add = (tool: AnyTool) => {
      if (seen.has(tool.name) || !policy.offers(tool, live.info.mode)) return;
      seen.add(tool.name);
      offered.push(tool);
    };
    for (const tool of await builtinTools()) add(tool);
    for (const extension of extensions) {
      if (!extension.tools) continue;
      try {
        for (const tool of await extension.tools(context)) add(tool);
      } catch (error) {
        context.emit(noticeOf(live.info.sessionId, extension.name, 'tools', error));
      }
    }
    return offered;
  }

  async function* runOneTurn(live: LiveSession, input: PromptInput, options: ProcessOptions, signal: AbortSignal) {
    const { sessionId } = live.info;
    const pending: AgentOutput[] = [];
    const runtime = options.runtime ?? (await localRuntime(live.info.cwd));
    const intent = promptText(input.prompt);
    const context: TurnContext = {
      sessionId,
      cwd: live.info.cwd,
      intent,
      signal,
      runtime,
      emit: (event) => pending.push(event),
    };

    const userEvent: AgentOutput = { type: 'user-message', sessionId, content: input.prompt };
    yield userEvent;
    const userMessage = toUserMessage(input.prompt);
    live.messages.push(userMessage);
    live.store.appendMessages(sessionId, [userMessage]);
    if (!live.info.title && intent) manager().then((m) => m.setTitle(live, intent.split('\n')[0]!.slice(0, 80)));

    let resolved: ResolvedLanguageModel;
    try {
      resolved = await model();
    } catch (error) {
      yield { type: 'error', sessionId, error: errorInfo(error, 'model_unavailable') } satisfies AgentOutput;
      return;
    }

    const prompts: string[] = [baseSystemPrompt({ cwd: live.info.cwd, custom: config.agent.systemPrompt })];
    for (const extension of extensions) {
      if (!extension.systemPrompt) continue;
      try {
        const part = await extension.systemPrompt(context);
        if (part) prompts.push(part);
      } catch (error) {
        pending.push(noticeOf(sessionId, extension.name, 'systemPrompt', error));
      }
    }

    const { runTurn } = await import('./agent-loop.js');
    const turn = runTurn({
      sessionId,
      model: resolved,
      system: prompts.join('\n\n'),
      messages: live.messages,
      tools: () => toolsFor(live, context),
      policy,
      mode: () => live.info.mode,
      permissions: live.permissions,
      runtime,
      allowedRoots: config.agent.allowedRoots,
      signal,
      maxSteps: config.agent.maxSteps,
      temperature: config.agent.temperature,
      maxOutputTokens: config.agent.maxOutputTokens,
      onStepMessages: (messages) => {
        live.messages.push(...messages);
        live.store.appendMessages(sessionId, messages);
      },
      onToolResult: async (call) => {
        for (const extension of extensions) {
          try {
            await extension.onToolResult?.(context, call);
          } catch (error) {
            pending.push(noticeOf(sessionId, extension.name, 'onToolResult', error));
          }
        }
      },
      takeSteering: () => live.running?.steering.splice(0) ?? [],
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
    for (const extension of extensions) {
      try {
        await extension.onTurnEnd?.(context, stopReason);
      } catch (error) {
        pending.push(noticeOf(sessionId, extension.name, 'onTurnEnd', error));
      }
    }
    while (pending.length > 0) yield pending.shift()!;
    yield { type: 'turn-end', sessionId, stopReason } satisfies AgentOutput;
  }

  async function* process(input: PromptInput, processOptions: ProcessOptions = {}): AsyncGenerator<AgentOutput> {
    if (stopped) {
      yield { type: 'error', sessionId: input.sessionId, error: { code: 'agent_stopped', message: 'The agent is stopping' } };
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

    // Steer: a message sent while a turn runs joins that turn before its next model step.
    const sendMode = processOptions.sendMode ?? config.agent.sendMode;
    if (live.running && sendMode === 'steer') {
      const userEvent: AgentOutput = { type: 'user-message', sessionId: input.sessionId, content: input.prompt };
      live.store.appendEvents(input.sessionId, [userEvent]);
      live.running.steering.push(toUserMessage(input.prompt));
      yield userEvent;
      yield { type: 'turn-end', sessionId: input.sessionId, stopReason: 'end_turn' };
      return;
    }

    // Queue: turns of one session run one after another.
    const previous = live.tail;
    let release!: () => void;
    live.tail = new Promise<void>((resolve) => (release = resolve));
    try {
      await previous;
      const controller = new AbortController();
      const onAbort = () => controller.abort();
      processOptions.signal?.addEventListener('abort', onAbort, { once: true });
      if (processOptions.signal?.aborted) controller.abort();
      live.running = { controller, steering: [] };
      const recorder = new EventRecorder(live);
      try {
        for await (const event of runOneTurn(live, input, processOptions, controller.signal)) {
          recorder.record(event);
          yield event;
        }
      } finally {
        recorder.flush();
        processOptions.signal?.removeEventListener('abort', onAbort);
        // Steering that arrived after the last model step is kept for the next turn.
        const leftover = live.running?.steering ?? [];
        if (leftover.length > 0) {
          live.messages.push(...leftover);
          live.store.appendMessages(live.info.sessionId, leftover);
        }
        live.running = undefined;
      }
    } finally {
      release();
    }
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
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async tools(sessionId) {
      const live = await (await manager()).open(sessionId);
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

async function openStores(config: PlaitedConfig): Promise<StoreRegistry> {
  const { StoreRegistry } = await import('../storage/store-registry.js');
  return new StoreRegistry(config.agent.stateDb ? { path: config.agent.stateDb } : {});
}

/**
 * Persists a turn's events as they pass: consecutive text (or thought) deltas are
 * merged into one stored chunk, and everything is written before the next non-delta event.
 */
class EventRecorder {
  #buffer: StoredAgentOutput[] = [];
  constructor(private readonly live: LiveSession) {}

  record(event: AgentOutput): void {
    if (!isStorable(event) || event.type === 'usage') return;
    const last = this.#buffer[this.#buffer.length - 1];
    if ((event.type === 'text-delta' || event.type === 'thought-delta') && last?.type === event.type) {
      this.#buffer[this.#buffer.length - 1] = { ...last, text: last.text + event.text };
      return;
    }
    this.#buffer.push(event);
    if (event.type !== 'text-delta' && event.type !== 'thought-delta') this.flush();
  }

  flush(): void {
    if (this.#buffer.length === 0) return;
    this.live.store.appendEvents(this.live.info.sessionId, this.#buffer);
    this.#buffer = [];
  }
}

async function runHooks(
  extensions: readonly AgentExtension[],
  hook: string,
  call: (extension: AgentExtension) => Promise<void> | void,
  publish: (event: AgentOutput) => void,
  sessionId: string,
): Promise<void> {
  await Promise.all(
    extensions.map(async (extension) => {
      try {
        await call(extension);
      } catch (error) {
        publish(noticeOf(sessionId, extension.name, hook, error));
      }
    }),
  );
}

function noticeOf(sessionId: string, extension: string, hook: string, error: unknown): AgentOutput {
  const message = error instanceof Error ? error.message : String(error);
  return { type: 'notice', sessionId, level: 'warning', message: `${extension} (${hook}) failed: ${message}` };
}

function errorInfo(error: unknown, fallback: string) {
  const message = error instanceof Error ? error.message : String(error);
  const code = error instanceof Error && 'code' in error && typeof error.code === 'string' ? error.code : fallback;
  return { code, message };
}
