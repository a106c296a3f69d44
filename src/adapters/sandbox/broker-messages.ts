import { z } from 'zod';

/**
 * The command broker's wire format (see command-broker.ts): one JSON object per line on the
 * private channel between the whole-agent launcher and its sandboxed agent. Both ends treat
 * every line as untrusted input: bounded in length, checked against these schemas, and a bad
 * one is reported and dropped, never thrown.
 */

/** The descriptor number of the agent's end of the channel, set on the sandboxed child. */
export const BROKER_FD_ENV = 'PLAITED_BROKER_FD';
/** Longest line either end accepts (a command line, or an output chunk in base64). */
export const MAX_BROKER_LINE = 4 * 1024 * 1024;
/** Longest command line the launcher runs. */
export const MAX_BROKER_COMMAND = 1024 * 1024;

// The schemas are built at their first parse (z.lazy): every start imports this file, and only a
// whole-agent sandbox's agent and launcher ever parse a message (~2 ms of zod otherwise).
let shared: ReturnType<typeof sharedParts> | undefined;
const parts = () => (shared ??= sharedParts());

function sharedParts() {
  return {
    id: z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER),
    path: z.string().min(1).max(4096).startsWith('/'),
    name: z.string().min(1).max(256).regex(/^[A-Za-z_][A-Za-z0-9_]*$/),
  };
}

/** What the agent asks of the launcher. */
export const agentMessage = z.lazy(() => {
  const { id, path, name } = parts();
  const server = z.strictObject({ key: z.string().min(1).max(256), name: z.string().max(256), label: z.string().max(1024) });
  const ruleEntry = z.strictObject({ rule: z.string().min(1).max(4096), effect: z.enum(['allow', 'deny']), added: z.string().max(64).optional(), server: server.optional() });
  return z.discriminatedUnion('t', [
    z.strictObject({
      t: z.literal('exec'),
      id,
      command: z.string().min(1).max(MAX_BROKER_COMMAND),
      cwd: path,
      timeoutMs: z.number().int().positive().max(2 ** 31 - 1).optional(),
      maxOutputBytes: z.number().int().positive().max(1024 ** 3).optional(),
      env: z.record(name, z.string().max(64 * 1024)).optional(),
      passEnv: z.array(name).max(256).optional(),
    }),
    /** Starts a long-lived program with pipes (a stdio MCP server): its argv, run without a shell. */
    z.strictObject({
      t: z.literal('spawn'),
      id,
      argv: z.array(z.string().max(64 * 1024)).min(1).max(1024),
      cwd: path,
      env: z.record(name, z.string().max(64 * 1024)).optional(),
    }),
    /** Bytes for a spawned program's stdin. */
    z.strictObject({ t: z.literal('stdin'), id, data: z.string().max(MAX_BROKER_LINE - 1024).base64() }),
    /** Stops a command or a spawned program (its whole tree). */
    z.strictObject({ t: z.literal('abort'), id }),
    z.strictObject({ t: z.literal('rule'), id, op: z.enum(['add', 'remove']), project: path, entry: ruleEntry }),
  ]);
});
export type AgentMessage = z.infer<typeof agentMessage>;

/** What the launcher answers. */
export const launcherMessage = z.lazy(() => {
  const { id } = parts();
  const finding = z.strictObject({ kind: z.enum(['read', 'write', 'network', 'memory', 'processes', 'timeout']), message: z.string().max(64 * 1024) });
  const execResult = z.strictObject({
    output: z.string(),
    exitCode: z.number().int().nullable(),
    signal: z.string().max(32).nullable(),
    truncated: z.boolean(),
    timedOut: z.boolean(),
  });
  return z.discriminatedUnion('t', [
    /** Output of a command (both streams), or a spawned program's stdout, or with `stream: 'stderr'` its stderr. */
    z.strictObject({ t: z.literal('output'), id, data: z.string().max(MAX_BROKER_LINE).base64(), stream: z.literal('stderr').optional() }),
    /** A spawned program ended (also when it could not start: `error` says why). */
    z.strictObject({ t: z.literal('exit'), id, code: z.number().int().nullable(), signal: z.string().max(32).nullable(), error: z.string().max(64 * 1024).optional() }),
    z.strictObject({ t: z.literal('result'), id, result: execResult, findings: z.array(finding).max(64).optional() }),
    z.strictObject({ t: z.literal('error'), id, message: z.string().max(64 * 1024) }),
    z.strictObject({ t: z.literal('done'), id, removed: z.boolean().optional() }),
  ]);
});
export type LauncherMessage = z.infer<typeof launcherMessage>;

/**
 * Splits a stream of chunks into lines of at most `MAX_BROKER_LINE` characters; an
 * over-long line is dropped whole (reported through `onOverflow`), never buffered on.
 */
export function lineSplitter(onLine: (line: string) => void, onOverflow: () => void): (chunk: Buffer | string) => void {
  let pending = '';
  let skipping = false;
  return (chunk) => {
    const parts = (pending + chunk.toString()).split('\n');
    pending = parts.pop() ?? '';
    for (const part of parts) {
      if (skipping) skipping = false;
      else if (part.length > MAX_BROKER_LINE) onOverflow();
      else if (part.length > 0) onLine(part);
    }
    if (pending.length > MAX_BROKER_LINE) {
      pending = '';
      if (!skipping) onOverflow();
      skipping = true;
    }
  };
}

/** Parses one line against a schema: the value, or the reason in words. */
export function parseLine<T>(schema: z.ZodType<T>, line: string): { ok: true; value: T } | { ok: false; reason: string } {
  let json: unknown;
  try {
    json = JSON.parse(line);
  } catch (error) {
    return { ok: false, reason: `not JSON (${(error as Error).message})` };
  }
  const parsed = schema.safeParse(json);
  if (parsed.success) return { ok: true, value: parsed.data };
  return { ok: false, reason: parsed.error.issues.map((issue) => `${issue.path.join('.') || 'message'}: ${issue.message}`).join('; ').slice(0, 500) };
}
