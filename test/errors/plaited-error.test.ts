import { describe, expect, it } from 'vitest';
import { PlaitedError } from '../../src/errors/plaited-error.js';
import {
  AdapterLoadError,
  AgentError,
  BackgroundLimitError,
  ConfigError,
  ContextError,
  DownloadTimeoutError,
  FileTooLargeError,
  ToolDefinitionError,
  InvalidCwdError,
  LocalModelError,
  McpAdapterError,
  McpClientError,
  ModelError,
  NetworkAuthError,
  PathOutsideWorkspaceError,
  PlaitedError as ExportedPlaitedError,
  ProcessSpawnError,
  RetrievalError,
  SandboxConfigError,
  SandboxUnavailableError,
  SandboxViolationError,
  StorageError,
  ToolCallCancelError,
  WebFetchError,
} from '../../src/index.js';
import { CliUsageError } from '../../src/cli/parse-cli-args.js';
import { RestHttpError } from '../../src/adapters/a2a/rest-result-response.js';

/** One instance of every error class, with the name and code callers see. */
const samples: Array<{ error: Error; isInstance: (value: unknown) => boolean; name: string; code: string }> = [
  { error: new ModelError('model_unavailable', 'm'), isInstance: ModelError.isInstance, name: 'ModelError', code: 'model_unavailable' },
  { error: new LocalModelError('model_load_failed', '/m.gguf', 'm'), isInstance: LocalModelError.isInstance, name: 'LocalModelError', code: 'model_load_failed' },
  { error: new DownloadTimeoutError('read', 5), isInstance: DownloadTimeoutError.isInstance, name: 'DownloadTimeoutError', code: 'download_timeout' },
  { error: new ConfigError('invalid_config', 'm', { file: null }), isInstance: ConfigError.isInstance, name: 'ConfigError', code: 'invalid_config' },
  { error: new ToolCallCancelError('s', 't', 'final'), isInstance: ToolCallCancelError.isInstance, name: 'ToolCallCancelError', code: 'tool_call_not_cancellable' },
  { error: new AgentError('agent_stopped', 'm'), isInstance: AgentError.isInstance, name: 'AgentError', code: 'agent_stopped' },
  { error: new RetrievalError('INDEX_CLOSED', 'm'), isInstance: RetrievalError.isInstance, name: 'RetrievalError', code: 'INDEX_CLOSED' },
  { error: new StorageError('open_failed', 'm', { path: '/x' }), isInstance: StorageError.isInstance, name: 'StorageError', code: 'open_failed' },
  { error: new CliUsageError('m'), isInstance: CliUsageError.isInstance, name: 'CliUsageError', code: 'cli_usage' },
  { error: new ProcessSpawnError({ file: 'x', cwd: '/', cause: new Error('ENOENT') }), isInstance: ProcessSpawnError.isInstance, name: 'ProcessSpawnError', code: 'spawn_failed' },
  { error: new FileTooLargeError({ path: '/f', size: 2, limit: 1 }), isInstance: FileTooLargeError.isInstance, name: 'FileTooLargeError', code: 'file_too_large' },
  { error: new ToolDefinitionError('x', 'bad'), isInstance: ToolDefinitionError.isInstance, name: 'ToolDefinitionError', code: 'invalid_tool_definition' },
  { error: new PathOutsideWorkspaceError({ path: '/a', resolvedPath: '/a', roots: ['/w'] }), isInstance: PathOutsideWorkspaceError.isInstance, name: 'PathOutsideWorkspaceError', code: 'path_outside_workspace' },
  { error: new WebFetchError('bad_url', 'm'), isInstance: WebFetchError.isInstance, name: 'WebFetchError', code: 'bad_url' },
  { error: new BackgroundLimitError('s', 8), isInstance: BackgroundLimitError.isInstance, name: 'BackgroundLimitError', code: 'background_limit' },
  { error: new SandboxViolationError({ findings: [] }), isInstance: SandboxViolationError.isInstance, name: 'SandboxViolationError', code: 'sandbox_violation' },
  { error: new SandboxConfigError('m'), isInstance: SandboxConfigError.isInstance, name: 'SandboxConfigError', code: 'sandbox_config_invalid' },
  { error: new SandboxUnavailableError({ reason: 'r', fix: 'f', requiredBy: 'b' }), isInstance: SandboxUnavailableError.isInstance, name: 'SandboxUnavailableError', code: 'sandbox_unavailable' },
  { error: new McpAdapterError('sampling_failed', 'm'), isInstance: McpAdapterError.isInstance, name: 'McpAdapterError', code: 'sampling_failed' },
  { error: new NetworkAuthError('weak_token', 'm'), isInstance: NetworkAuthError.isInstance, name: 'NetworkAuthError', code: 'weak_token' },
  { error: new RestHttpError(404, 'NOT_FOUND', 'm'), isInstance: RestHttpError.isInstance, name: 'RestHttpError', code: 'rest_http_refused' },
  { error: new AdapterLoadError('/a.ts', 'm'), isInstance: AdapterLoadError.isInstance, name: 'AdapterLoadError', code: 'adapter_load_failed' },
  { error: new InvalidCwdError('cwd', 'x', 'does not exist'), isInstance: InvalidCwdError.isInstance, name: 'InvalidCwdError', code: 'invalid_cwd' },
  { error: new McpClientError({ code: 'timeout', serverId: 's', message: 'm' }), isInstance: McpClientError.isInstance, name: 'McpClientError', code: 'timeout' },
  { error: new ContextError('cycle', 'm'), isInstance: ContextError.isInstance, name: 'ContextError', code: 'cycle' },
];

describe('PlaitedError, the one error base', () => {
  it('is the base of every error class, each keeping its name and code', () => {
    expect(ExportedPlaitedError).toBe(PlaitedError);
    for (const { error, name, code } of samples) {
      expect(error, name).toBeInstanceOf(PlaitedError);
      expect(PlaitedError.isInstance(error), name).toBe(true);
      expect(error.name, name).toBe(name);
      expect((error as PlaitedError).code, name).toBe(code);
      expect(String(error), name).toBe(error.message ? `${name}: ${error.message}` : name);
    }
  });

  it("keeps each class's isInstance to its own kind", () => {
    for (const { error, isInstance, name } of samples) {
      expect(isInstance(error), name).toBe(true);
      // SandboxViolationError and friends recognise by code; no other sample shares a name.
      const others = samples.filter((other) => other.name !== name && other.code !== samples.find((s) => s.name === name)!.code);
      for (const other of others) expect(isInstance(other.error), `${name}.isInstance(${other.name})`).toBe(false);
    }
    expect(PlaitedError.isInstance(new Error('plain'))).toBe(false);
    expect(PlaitedError.isInstance({ name: 'ModelError', code: 'model_unavailable' })).toBe(false);
  });

  it('recognises an error of another copy of the package by its global marker, not by instanceof', () => {
    class OtherCopyError extends Error {}
    Object.defineProperty(OtherCopyError.prototype, Symbol.for('plaited-agent.error'), { value: true });
    const foreign = Object.assign(new OtherCopyError('m'), { name: 'WebFetchError', code: 'bad_url' });
    expect(foreign).not.toBeInstanceOf(PlaitedError);
    expect(PlaitedError.isInstance(foreign)).toBe(true);
    expect(WebFetchError.isInstance(foreign)).toBe(true);
  });

  it('carries code, context and cause, and adds no own cause or context when none is given', () => {
    const cause = new Error('disk');
    const error = new PlaitedError('x_failed', 'it failed', { context: { file: '/f' }, cause });
    expect(error).toMatchObject({ name: 'PlaitedError', code: 'x_failed', message: 'it failed', context: { file: '/f' } });
    expect(error.cause).toBe(cause);
    const bare = new ConfigError('config_not_found', 'm', { file: '/c.ts' });
    expect('cause' in bare).toBe(false);
    expect('context' in bare).toBe(false);
    expect(JSON.parse(JSON.stringify(bare))).toEqual({ name: 'ConfigError', code: 'config_not_found', file: '/c.ts', issues: [] });
    expect(new RetrievalError('INDEX_CLOSED', 'm').context).toEqual({});
  });
});
