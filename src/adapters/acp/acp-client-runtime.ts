import type * as acp from '@agentclientprotocol/sdk';
import type { ProtectedLayer } from '../../tools/protected-layer.js';
import type { ElicitationAnswer, ElicitationQuestion, ExecOptions, ExecResult, Runtime } from '../../contracts/runtime.js';
import { splitLines, textWindowFromText } from '../../tools/text-window-from-text.js';

/**
 * A Runtime backed by the ACP client: file reads and writes go through `fs/*` (so the
 * agent sees unsaved editor buffers), commands run in client terminals. Each capability
 * falls back to the local runtime when the client does not advertise it.
 */
export function createAcpClientRuntime(options: {
  client: acp.AgentContext;
  sessionId: string;
  capabilities: acp.ClientCapabilities | undefined;
  local: Runtime;
  /**
   * The read-only layer for commands in client terminals (the same as the local
   * runtime's): the client runs `bash -c <line>`, so the layer goes into the line.
   */
  layer?: ProtectedLayer | null;
}): Runtime {
  const { client, sessionId, capabilities, local } = options;
  const fs = capabilities?.fs;
  const kinds = [fs?.readTextFile || fs?.writeTextFile ? 'acp-fs' : '', capabilities?.terminal ? 'acp-terminal' : ''].filter(Boolean);
  return {
    cwd: local.cwd,
    kind: kinds.length > 0 ? kinds.join('+') : local.kind,
    async readFile(path, readOptions) {
      if (!fs?.readTextFile) return local.readFile(path, readOptions);
      const response = await client.request('fs/read_text_file', { sessionId, path });
      return response.content;
    },
    async readTextWindow(path, windowOptions) {
      if (!fs?.readTextFile) return local.readTextWindow!(path, windowOptions);
      // The client reads the lines (an editor buffer may differ from the disk); one more than asked tells whether more follow.
      const { offset, limit } = windowOptions;
      const response = await client.request('fs/read_text_file', { sessionId, path, line: offset, limit: limit + 1 });
      // Fewer lines than asked: the client reached the end of the file, so the line count is known.
      return textWindowFromText(response.content, windowOptions, splitLines(response.content).length <= limit);
    },
    async writeFile(path, content, writeOptions) {
      if (!fs?.writeTextFile) return local.writeFile(path, content, writeOptions);
      await client.request('fs/write_text_file', { sessionId, path, content });
    },
    async exec(command, execOptions = {}) {
      if (!capabilities?.terminal) return local.exec(command, execOptions);
      const layered = options.layer && !execOptions.isolated ? await options.layer.wrap(command, { roots: [local.cwd], parentIsAgent: false }) : null;
      try {
        const layeredOptions = layered ? { ...execOptions, env: { ...execOptions.env, ...layered.env } } : execOptions;
        return await execInClientTerminal(client, sessionId, local.cwd, layered ? layered.line : command, layeredOptions);
      } finally {
        await layered?.release();
      }
    },
    // Structured questions (MCP servers' elicitations) go to a client that takes them as they are.
    ...(capabilities?.elicitation?.form || capabilities?.elicitation?.url
      ? { elicit: (question: ElicitationQuestion, elicitOptions: { signal?: AbortSignal; toolCallId?: string }) => elicitFromClient(client, sessionId, capabilities.elicitation!, question, elicitOptions) }
      : {}),
  };
}

async function elicitFromClient(
  client: acp.AgentContext,
  sessionId: string,
  supported: acp.ElicitationCapabilities,
  question: ElicitationQuestion,
  options: { signal?: AbortSignal; toolCallId?: string },
): Promise<ElicitationAnswer> {
  // A mode the client did not advertise is declined, as the spec forbids sending it.
  if ((question.mode === 'form' && !supported.form) || (question.mode === 'url' && !supported.url)) return { action: 'decline' };
  const scope = { sessionId, ...(options.toolCallId ? { toolCallId: options.toolCallId } : {}) };
  const params: acp.CreateElicitationRequest =
    question.mode === 'form'
      ? { ...scope, mode: 'form', message: question.message, requestedSchema: question.requestedSchema as acp.ElicitationSchema }
      : { ...scope, mode: 'url', message: question.message, url: question.url, elicitationId: question.elicitationId };
  try {
    const response = await client.request('elicitation/create', params, options.signal ? { cancellationSignal: options.signal } : undefined);
    if (response.action === 'accept') return { action: 'accept', ...('content' in response && response.content ? { content: response.content as Record<string, unknown> } : {}) };
    return { action: response.action === 'decline' ? 'decline' : 'cancel' };
  } catch {
    return options.signal?.aborted ? { action: 'cancel' } : { action: 'decline' };
  }
}

async function execInClientTerminal(
  client: acp.AgentContext,
  sessionId: string,
  cwd: string,
  command: string,
  options: ExecOptions,
): Promise<ExecResult> {
  const terminal = await client.createTerminal({
    sessionId,
    command: 'bash',
    args: ['-c', command],
    cwd: options.cwd ?? cwd,
    env: Object.entries(options.env ?? {}).map(([name, value]) => ({ name, value })),
    ...(options.maxOutputBytes ? { outputByteLimit: options.maxOutputBytes } : {}),
  });
  options.onTerminal?.(terminal.id);
  let timedOut = false;
  let timer: NodeJS.Timeout | undefined;
  const stop = () => void terminal.kill().catch(() => undefined);
  options.signal?.addEventListener('abort', stop, { once: true });
  // Cancelled while the terminal was being created: the abort event has already fired.
  if (options.signal?.aborted) stop();
  if (options.timeoutMs) {
    timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, options.timeoutMs);
  }
  try {
    const exit = await terminal.waitForExit();
    const output = await terminal.currentOutput();
    return {
      output: output.output,
      exitCode: exit.exitCode ?? null,
      signal: exit.signal ?? null,
      truncated: output.truncated,
      timedOut,
      terminalId: terminal.id,
    };
  } finally {
    if (timer) clearTimeout(timer);
    options.signal?.removeEventListener('abort', stop);
    // The tool call already embeds the terminal, so the client keeps showing its output after release.
    await terminal.release().catch(() => undefined);
  }
}
