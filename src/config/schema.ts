import { z } from 'zod';
import type { LanguageModel } from 'ai';
import { namedModelSchema } from './named-model-schema.js';
import type { OnToolCallHook, OnToolResultHook, OnTurnEndHook } from '../contracts/agent-hooks.js';

/**
 * The one schema for `.plaited/config.ts`. Every section has defaults, so an
 * empty file (or none) is a valid config. Objects are strict: a typo is an error
 * with its path, not a silently ignored key.
 */

const languageModel = z.custom<Exclude<LanguageModel, string>>(
  (value) => typeof value === 'object' && value !== null && 'specificationVersion' in value && 'doStream' in value,
  { message: 'expected "provider:model" string or an AI SDK LanguageModel object' },
);

const modelSpec = z.union([z.string().min(1), languageModel]);

/** `name` or `name(scope)`: what `src/agent/permission-rule.ts` reads (also `-p --allow/--deny`). */
export const permissionRule = z
  .string()
  .regex(/^[^()\s]+(\(.+\))?$/s, 'a tool name (`*` wildcard) or a tool and a scope in parentheses, e.g. "bash(npm test:*)" or "write_file(src/**)"');

export const toolPolicySchema = z.strictObject({
  /** Which tool sources may be offered at all. */
  sources: z
    .strictObject({
      local: z.boolean().default(true),
      mcp: z.boolean().default(true),
      skill: z.boolean().default(true),
      memory: z.boolean().default(true),
    })
    .prefault({}),
  /**
   * Rules that never ask: a tool name (glob, `*` wildcard) for the whole tool, or a tool and a scope
   * (`bash(npm test:*)`, `bash(make lint)`, `write_file(src/**)`). Applied after source gates.
   */
  allow: z.array(permissionRule).default([]),
  /** Rules refused (deny wins over allow); a plain tool name is not offered either. */
  deny: z.array(permissionRule).default([]),
  /** The environment of tool processes (bash, grep): credential-like variables are scrubbed unless named here. */
  env: z
    .strictObject({
      /** Secret-looking variables (`*_TOKEN`, `*_KEY`, …) that commands may still inherit, e.g. `['GITHUB_TOKEN']`. */
      passthrough: z.array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name')).default([]),
    })
    .prefault({}),
});

export const agentSchema = z.strictObject({
  /** `openai-compatible:MODEL`, `llama-cpp:PATH_OR_URI`, or an AI SDK LanguageModel object. */
  model: modelSpec.optional(),
  /** Further models a client may pick per session (ACP config option `model`), beside `model`. */
  models: z.array(namedModelSchema).default([]),
  /** Base URL of an OpenAI-compatible endpoint, e.g. http://127.0.0.1:11434/v1 for Ollama. */
  baseURL: z.string().url().optional(),
  /** API key; `PLAITED_API_KEY` from the environment is used when absent. */
  apiKey: z.string().optional(),
  /** Extra HTTP headers for the model endpoint. */
  headers: z.record(z.string(), z.string()).optional(),
  systemPrompt: z.string().optional(),
  /** Model steps per turn before the turn ends with `max_turn_requests`. */
  maxSteps: z.number().int().positive().default(25),
  temperature: z.number().min(0).max(2).optional(),
  /** Thinking of native providers: Anthropic's extended thinking and Gemini's thinking with this budget, OpenAI's reasoning effort. */
  reasoning: z.enum(['low', 'medium', 'high']).optional(),
  maxOutputTokens: z.number().int().positive().optional(),
  /**
   * Largest reply one model step may stream (text and reasoning, UTF-8 bytes): past it the
   * reply is cut and the turn ends with \`max_tokens\` and a notice. 1 MiB is twice what the
   * largest output caps (~128k tokens ≈ 512 KB) produce, and bounds what one reply makes the
   * process hold and store.
   */
  maxReplyBytes: z.number().int().positive().default(1024 * 1024),
  /**
   * Most text one tool result brings the model (characters); past it the result is cut with a
   * note. Above every built-in tool's own bound (read_file: 256 KB a call): it holds a tool of
   * one's own, whose output would otherwise ride in every later request.
   */
  maxToolResultChars: z.number().int().positive().default(400_000),
  /** Threads for local llama.cpp models; default: half the logical cores (at least 1), see docs/DESIGN-NOTES.md. */
  threads: z.number().int().positive().optional(),
  /** Upper bound of a local model's context (tokens per sequence); default: the model's training context, shrunk to fit memory. */
  contextSize: z.number().int().positive().optional(),
  /** Chat format for local models: follow the model's template, or force one. */
  chatFormat: z.enum(['auto', 'functiongemma', 'generic']).default('auto'),
  /** Local (llama-cpp) models: parallel generations, and sessions that keep their evaluated prompt (KV cache) between steps and turns. */
  localModel: z
    .strictObject({
      /** Sequences of the model's context: generations that run at once (sessions, sub-agents); more wait. */
      sequences: z.number().int().positive().default(4),
      /** Sessions whose evaluated tokens stay resident (least recently used are evicted); default: all `sequences`. 0 turns reuse off. */
      residentSequences: z.number().int().nonnegative().optional(),
    })
    .prefault({}),
  /** Folders outside the session cwd that file tools may touch. */
  allowedRoots: z.array(z.string()).default([]),
  /** Where session state lives; default `<session cwd>/.plaited/state.db`. */
  stateDb: z.string().optional(),
  /** One writer per session: how often a held session's lease is renewed, and after how long unrenewed another process may take it over. */
  sessionLease: z
    .strictObject({
      heartbeatMs: z.number().int().positive().default(5_000),
      staleMs: z.number().int().positive().default(20_000),
    })
    .refine((lease) => lease.staleMs > lease.heartbeatMs, { message: 'staleMs must be longer than heartbeatMs' })
    .optional(),
  /** Default permission mode of new sessions. */
  defaultMode: z.enum(['default', 'accept-edits', 'plan']).default('default'),
  /** Bash tool limits. */
  bash: z
    .strictObject({
      timeoutMs: z.number().int().positive().default(120_000),
      maxOutputBytes: z.number().int().positive().default(30_000),
    })
    .prefault({}),
  /** What a message sent during a running turn does. */
  sendMode: z.enum(['steer', 'queue']).default('steer'),
  /** Native tool calling, or `<tool_call>` blocks parsed from text. */
  toolCallFormat: z.enum(['native', 'xml']).default('native'),
  maxParallelSubagents: z.number().int().positive().default(5),
  /** Model calls (HTTP providers) this process makes at once; more wait in line (first come, first served). */
  maxConcurrentModelCalls: z.number().int().positive().default(8),
  /** A model call answered 429/5xx or cut by a connection reset is retried (backoff, `retry-after`): attempts in all, and their total time. */
  retries: z
    .strictObject({
      attempts: z.number().int().positive().default(4),
      maxTotalMs: z.number().int().nonnegative().default(60_000),
    })
    .prefault({}),
  /**
   * How long a model call may go without a word from its endpoint: `replyMs` until the reply
   * begins, `streamIdleMs` between pieces of a reply. Past either the call fails naming the setting.
   */
  modelTimeouts: z
    .strictObject({
      replyMs: z.number().int().positive().default(300_000),
      streamIdleMs: z.number().int().positive().default(300_000),
    })
    .prefault({}),
  /** The model's context window in tokens; `contextSize` (local models) or 128k when absent. */
  contextWindow: z.number().int().positive().optional(),
  /** Compact the history sent to the model past this many tokens (a value <= 1 is a fraction of the window). Default 0.8. */
  compactAt: z.number().positive().default(0.8),
  /** Compaction keeps this many latest user turns verbatim. */
  compactKeepTurns: z.number().int().nonnegative().default(2),
  /** Tool outputs older than this many user turns are cut to a stub in what the model sees. */
  truncateToolOutputsAfter: z.number().int().nonnegative().default(3),
  /** After each turn, a model pass notes what to do differently (stored with the episode). */
  reflection: z.boolean().default(false),
  /** The web_fetch tool's limits. */
  webFetch: z
    .strictObject({
      timeoutMs: z.number().int().positive().default(15_000),
      maxBytes: z.number().int().positive().default(50 * 1024),
    })
    .prefault({}),
  /** Episodic memory: a summary per turn in the hybrid index; the most relevant are injected later. */
  episodic: z
    .strictObject({
      enabled: z.boolean().default(false),
      /** Episodes injected at the start of a turn. */
      inject: z.number().int().nonnegative().default(3),
    })
    .prefault({}),
});

/** A hook function or several (they run in order). Functions only: hooks live in `.plaited/config.ts`. */
const hookList = <F>(name: string) =>
  z
    .union([
      z.custom<F>((value) => typeof value === 'function', { message: `${name} must be a function` }),
      z.array(z.custom<F>((value) => typeof value === 'function', { message: `${name} must be a function` })),
    ])
    .optional();

export const hooksSchema = z.strictObject({
  /** May return `{ deny: reason }` or `{ args }`; the first hook that decides wins. */
  onToolCall: hookList<OnToolCallHook>('onToolCall'),
  onToolResult: hookList<OnToolResultHook>('onToolResult'),
  onTurnEnd: hookList<OnTurnEndHook>('onTurnEnd'),
});

export const mcpServerSchema = z
  .strictObject({
    id: z.string().regex(/^[A-Za-z0-9_.-]+$/, 'letters, digits, "_", "-" and "." only'),
    name: z.string().optional(),
    description: z.string().optional(),
    transport: z.enum(['stdio', 'http', 'sse']),
    command: z.string().optional(),
    args: z.array(z.string()).default([]),
    env: z.record(z.string(), z.string()).default({}),
    cwd: z.string().optional(),
    url: z.string().url().optional(),
    headers: z.record(z.string(), z.string()).default({}),
    auth: z
      .discriminatedUnion('type', [
        z.strictObject({ type: z.literal('none') }),
        z.strictObject({ type: z.literal('bearer'), token: z.string().min(1) }),
        z.strictObject({
          type: z.literal('oauth'),
          clientId: z.string().optional(),
          clientSecret: z.string().optional(),
          scope: z.string().optional(),
          redirectUrl: z.string().url().optional(),
        }),
      ])
      .default({ type: 'none' }),
    /** Per-request timeout. */
    timeoutMs: z.number().int().positive().default(30_000),
    /** Characters of one tool answer the model gets (default 100,000, about 25,000 tokens); the rest is cut with a note. */
    maxResultChars: z.number().int().positive().optional(),
    enabled: z.boolean().default(true),
    /**
     * Believe this server's `readOnlyHint` (its tools then run unasked, in plan mode too). Off by
     * default: annotations come from the server and are untrusted (MCP spec).
     */
    trustAnnotations: z.boolean().default(false),
    /** The server's `sampling/createMessage` (it uses your model): ask each time (default), allow, or deny. */
    sampling: z.enum(['ask', 'allow', 'deny']).optional(),
    /** Sampling requests this server may make per minute, asked or allowed (default 5). */
    samplingPerMinute: z.number().int().min(0).optional(),
    /** Questions this server may put to the user per minute (elicitation); past it they are declined unasked (default 5). */
    elicitationPerMinute: z.number().int().min(0).optional(),
  })
  .superRefine((server, ctx) => {
    if (server.transport === 'stdio' && !server.command) {
      ctx.addIssue({ code: 'custom', path: ['command'], message: 'required for the stdio transport' });
    }
    if (server.transport !== 'stdio' && !server.url) {
      ctx.addIssue({ code: 'custom', path: ['url'], message: `required for the ${server.transport} transport` });
    }
  });

export const mcpSchema = z.strictObject({
  servers: z.array(mcpServerSchema).default([]),
  discovery: z
    .strictObject({
      /** Above this many MCP tools, a turn offers only the most relevant ones plus `search_tools`. */
      threshold: z.number().int().nonnegative().default(30),
      limit: z.number().int().positive().default(8),
    })
    .prefault({}),
  /** Where the hybrid index lives; default `<project>/.plaited/index.db`. */
  indexDb: z.string().optional(),
  /** How long the first turn waits for `servers` to connect and be indexed (ms); then it goes on with a notice. */
  startupWaitMs: z.number().int().nonnegative().default(15_000),
});

export const embedderSchema = z.strictObject({
  /** Path to a GGUF embedding model or an `hf:` URI. */
  model: z.string().default('hf:CompendiumLabs/bge-small-en-v1.5-gguf:Q8_0'),
  threads: z.number().int().positive().optional(),
  batchSize: z.number().int().positive().default(64),
});

export const skillsSchema = z.strictObject({
  enabled: z.boolean().default(true),
  roots: z.array(z.string()).default(['.plaited/skills', '.claude/skills', '.agents/skills']),
  maxPromptChars: z.number().int().positive().default(12_000),
  maxFileBytes: z.number().int().positive().default(131_072),
  allow: z.array(z.string()).default([]),
  deny: z.array(z.string()).default([]),
});

export const rulesSchema = z.strictObject({
  enabled: z.boolean().default(true),
  /** The root rules file, relative to the session cwd (and to each folder above it up to the git root); default `AGENTS.md`, or `CLAUDE.md` where a folder has that and no `AGENTS.md`. */
  file: z.string().optional(),
  /** Bytes of rules text that may go into the system prompt. */
  maxPromptChars: z.number().int().positive().default(20_000),
});

export const memorySchema = z.strictObject({
  enabled: z.boolean().default(false),
  dir: z.string().default('.plaited/memory'),
});

export const cacheSchema = z.strictObject({
  enabled: z.boolean().default(false),
  threshold: z.number().min(0).max(1).default(0.95),
  ttlMs: z.number().int().positive().default(3_600_000),
});

export const sandboxSchema = z.strictObject({
  enabled: z.boolean().default(false),
  /** Refuse to start when isolation is unavailable (also implied by NODE_ENV=production). */
  required: z.boolean().default(false),
  /** Sandbox each bash call and stdio MCP server even without the whole-agent wrapper. */
  commands: z.boolean().default(false),
  security: z
    .strictObject({
      allowWrite: z.array(z.string()).default(['./output']),
      denyRead: z.array(z.string()).default(['~/.ssh', '~/.aws', '~/.gnupg', '.env', '.env.*']),
      allowedDomains: z.array(z.string()).default([]),
      /**
       * Every repository's `.git` read-only as a whole, for commands and MCP servers. Then a save of
       * `.git/config` by your own git while a command runs cannot lift its wall (README "Sandbox");
       * the price: nothing the agent runs can commit.
       */
      readOnlyGit: z.boolean().default(false),
    })
    .prefault({}),
  limits: z
    .strictObject({
      /** Bytes, or a string like "512M" or "2G". Checked here so a bad value stops start-up, not every turn. */
      memory: z
        .union([z.number().int().positive(), z.string().regex(/^\s*\d+(?:\.\d+)?\s*[KMG]?B?\s*$/i, 'expected bytes or a size like "512M" or "2G"')])
        .optional(),
      timeoutMs: z.number().int().positive().optional(),
      processes: z.number().int().positive().optional(),
    })
    .prefault({}),
});

/** The A2A face (`--adapter a2a`): where it listens and what its agent card says (who may call: `server.auth`, shared by every network face). */
export const a2aSchema = z.strictObject({
  host: z.string().default('127.0.0.1'),
  port: z.number().int().nonnegative().default(4100),
  /**
   * Where peers reach this agent, when not at the address it listens on (behind a balancer:
   * `https://agent.example.com`): the agent card names `<publicUrl>/a2a` and `<publicUrl>/a2a/rest`.
   */
  publicUrl: z.string().url().optional(),
  /** How long a task waits in `input-required` for the peer's answer before the tool call is rejected. */
  inputTimeoutMs: z.number().int().positive().default(300_000),
  /** Largest request body accepted (bytes); larger ones are refused (413). */
  maxMessageBytes: z.number().int().min(1024).default(16 * 1024 * 1024),
  /** Deepest nesting of arrays/objects accepted in one body, as `adapters.acp.maxJsonDepth`. */
  maxJsonDepth: z.number().int().min(8).max(10_000).default(128),
  allowedOrigins: z.array(z.string()).default([]),
  /** Agent card fields (defaults: the package's name and description). */
  card: z
    .strictObject({
      name: z.string().min(1).optional(),
      description: z.string().min(1).optional(),
      provider: z.strictObject({ organization: z.string(), url: z.string().url() }).optional(),
      documentationUrl: z.string().url().optional(),
      iconUrl: z.string().url().optional(),
    })
    .prefault({}),
});

export const adaptersSchema = z.strictObject({
  acp: z
    .strictObject({
      transport: z.enum(['stdio', 'http']).default('stdio'),
      host: z.string().default('127.0.0.1'),
      port: z.number().int().nonnegative().default(3284),
      idleTimeoutMs: z.number().int().positive().default(300_000),
      /** Largest JSON-RPC message accepted (bytes, stdio line or HTTP body); larger ones are refused with an error. */
      maxMessageBytes: z.number().int().min(1024).default(32 * 1024 * 1024),
      /** Deepest nesting of arrays/objects accepted in one message. */
      maxJsonDepth: z.number().int().min(8).max(10_000).default(128),
    })
    .prefault({}),
  mcp: z
    .strictObject({
      transport: z.enum(['stdio', 'http']).default('stdio'),
      host: z.string().default('127.0.0.1'),
      port: z.number().int().nonnegative().default(3333),
      exposeRegistry: z.boolean().default(false),
      allowedOrigins: z.array(z.string()).default([]),
      /** As `adapters.acp.maxMessageBytes`, for the MCP server face. */
      maxMessageBytes: z.number().int().min(1024).default(32 * 1024 * 1024),
      maxJsonDepth: z.number().int().min(8).max(10_000).default(128),
    })
    .prefault({}),
  sandbox: sandboxSchema.prefault({}),
  a2a: a2aSchema.prefault({}),
})
  // `adapters.<name>`: the section of a custom adapter (`--adapter ./x.ts` whose `name` is <name>),
  // handed to its `wrap` as `settings`; its own code checks the contents.
  .catchall(z.record(z.string(), z.unknown()));

/** A replica's route name: no `.` (it ends the prefix of a routed connection id), safe in a header and an nginx map. */
export const REPLICA_ID_PATTERN = /^[A-Za-z0-9_-]{1,63}$/;

/** The network faces' own auth (ACP/MCP over HTTP, A2A): who may call this agent. */
export const serverSchema = z.strictObject({
  /**
   * This replica's route name behind a balancer (`--replica-id` and `PLAITED_REPLICA_ID` win): the
   * prefix of its ACP connection ids and its `Plaited-Replica` header. Default: host name and port.
   */
  replicaId: z
    .string()
    .regex(REPLICA_ID_PATTERN, { message: 'server.replicaId must be 1 to 63 letters, digits, "-" or "_" (no ".")' })
    .optional(),
  auth: z
    .strictObject({
      /** Bearer token of the local user; `--auth-token` and `PLAITED_AUTH_TOKEN` win over it. Generated at start when none is set. */
      token: z.string().min(16).optional(),
      /** Other principals, name → token: each sees only the sessions it created. */
      principals: z.record(z.string().min(1), z.string().min(16)).default({}),
    })
    .prefault({}),
  /**
   * On SIGTERM a network replica drains: `/readyz` answers 503 and prompts are refused at once,
   * running turns get this long to finish (ms), then are cancelled and recorded as interrupted.
   */
  shutdownGraceMs: z.number().int().min(0).default(30_000),
});

/** Where sessions live when not in per-project SQLite files: a PostgreSQL server several replicas share. */
export const storageSchema = z.strictObject({
  /** `postgres://user:password@host:5432/db`; overridden by `--store` and `PLAITED_STORE`. Unset: SQLite (`agent.stateDb`). */
  url: z
    .string()
    .refine((url) => /^postgres(ql)?:\/\//.test(url), { message: 'storage.url must be a postgres:// (or postgresql://) URL; leave it unset for the SQLite default' })
    .optional(),
});

export const configSchema = z.strictObject({
  storage: storageSchema.prefault({}),
  agent: agentSchema.prefault({}),
  tools: toolPolicySchema.prefault({}),
  mcp: mcpSchema.prefault({}),
  embedder: embedderSchema.prefault({}),
  skills: skillsSchema.prefault({}),
  rules: rulesSchema.prefault({}),
  memory: memorySchema.prefault({}),
  cache: cacheSchema.prefault({}),
  adapters: adaptersSchema.prefault({}),
  server: serverSchema.prefault({}),
  /** Named shell scripts the agent and the user can run (`scripts.test: "npm test"`). */
  scripts: z.record(z.string(), z.string()).default({}),
  /** Functions called around tool calls and turns: the core runs them as one more extension, the last (src/agent/config-hooks-extension.ts). */
  hooks: hooksSchema.prefault({}),
  /** Sub-agent definitions for the `task` tool. */
  agents: z
    .record(
      z.string(),
      z.strictObject({
        description: z.string(),
        systemPrompt: z.string().optional(),
        tools: z.array(z.string()).optional(),
        model: modelSpec.optional(),
      }),
    )
    .default({}),
});

/** What a user writes (every field optional). */
export type PlaitedConfigInput = z.input<typeof configSchema>;
/** The config after defaults are applied. */
export type PlaitedConfig = z.output<typeof configSchema>;
export type McpServerConfig = z.output<typeof mcpServerSchema>;
export type SandboxConfig = z.output<typeof sandboxSchema>;
export type ToolPolicyConfig = z.output<typeof toolPolicySchema>;
export type HooksConfig = z.output<typeof hooksSchema>;
