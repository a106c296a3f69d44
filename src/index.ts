/**
 * The public API of plaited-agent: build an agent, configure it, add tools, and write
 * adapters (`plaited-agent --adapter ./my-adapter.ts`). Node-only transports and the
 * protocol SDKs load lazily behind the built-in adapters, so importing this stays light.
 */

export { createAgent, type CreateAgentOptions } from './agent/create-agent.js';
export { createDefaultAgent, type CreateDefaultAgentOptions, type DefaultAgent } from './default-agent.js';
export { defineConfig } from './config/define-config.js';
export { parseConfig } from './config/parse-config.js';
export { loadConfig, CONFIG_FILE_NAMES, type LoadConfigOptions, type LoadedConfig } from './config/load-config.js';
export { PlaitedError, type PlaitedErrorOptions } from './errors/plaited-error.js';
export { ConfigError, type ConfigErrorCode, type ConfigIssue } from './config/config-error.js';
export { ToolCallCancelError } from './agent/running-tool-calls.js';
export { AgentError } from './agent/agent-error.js';
export { rejectOnce } from './agent/reject-once.js';
export { ModelError } from './model/model-error.js';
export { LocalModelError } from './model/local-model-error.js';
export { DownloadTimeoutError } from './model/download-watchdog.js';
export { StorageError, type StorageErrorCode } from './storage/storage-error.js';
export { RetrievalError, type RetrievalErrorCode } from './retrieval/retrieval-error.js';
export { ContextError, type ContextErrorCode } from './context/context-error.js';
export { McpClientError, type McpClientErrorCode } from './mcp/mcp-client-error.js';
export { ProcessSpawnError } from './tools/process-spawn-error.js';
export { FileTooLargeError } from './tools/file-too-large-error.js';
export { PathOutsideWorkspaceError } from './tools/path-outside-workspace-error.js';
export { WebFetchError, type WebFetchErrorCode } from './tools/web-fetch-error.js';
export { BackgroundLimitError } from './tools/background-limit-error.js';
export { SandboxViolationError } from './adapters/sandbox/sandbox-violation-error.js';
export { SandboxConfigError } from './adapters/sandbox/sandbox-config-error.js';
export { SandboxUnavailableError } from './adapters/sandbox/sandbox-unavailable-error.js';
export { McpAdapterError, type McpAdapterErrorCode } from './adapters/mcp-server/mcp-adapter-error.js';
export { NetworkAuthError, type NetworkAuthErrorCode } from './adapters/http/network-auth-error.js';
export { InvalidCwdError } from './adapters/invalid-cwd-error.js';
export { createPermissionRuleFile, type PermissionRuleEntry, type PermissionRuleStore } from './storage/permission-rule-file.js';
export { defineTool, type DefineToolOptions } from './tools/define-tool.js';
export { ToolDefinitionError } from './tools/tool-definition-error.js';
export { textResult } from './tools/tool-result.js';

export type { AgentAdapter } from './adapters/agent-adapter.js';
export type { CustomAdapterOptions } from './adapters/custom-adapter-options.js';
export type {
  Agent,
  AgentCapabilities,
  CreateSessionOptions,
  ProcessOptions,
  PromptInput,
  SessionInfo,
  SessionManager,
  SessionMode,
} from './agent/agent.js';
export type {
  AgentErrorInfo,
  AgentOutput,
  AgentOutputType,
  ContentPart,
  PermissionDecision,
  PermissionOption,
  PermissionOptionKind,
  PlanEntry,
  StopReason,
  StoredAgentOutput,
  ToolCallContent,
  ToolCallLocation,
  ToolCallStatus,
  ToolKind,
} from './contracts/agent-output.js';
export type { AgentExtension, CommandOutcome, ExtensionCommand } from './agent/agent-extension.js';
export type { ModelObserver } from './agent/observe-models.js';
export type { AnyTool, JsonSchema, Tool, ToolContext, ToolPreviewContext, ToolResult, ToolResultPart, ToolRisk, ToolSource } from './contracts/tool.js';
export type { Runtime } from './contracts/runtime.js';
export type { McpServerConfig, PlaitedConfig, PlaitedConfigInput } from './config/schema.js';

export { AdapterLoadError } from './adapters/load-adapter.js';
export { acpAdapter, mcpAdapter, a2aAdapter, sandboxAdapter } from './adapters/builtin-adapters.js';
export type { McpServerAdapterOptions, McpServerHandle } from './adapters/mcp-server/mcp-server-adapter.js';
export type { AcpAdapterOptions, AcpStdioServer } from './adapters/acp/acp-adapter.js';
export type { A2aAdapterOptions, A2aServer } from './adapters/a2a/a2a-adapter.js';
export type { SandboxAdapterOptions } from './adapters/sandbox/sandbox-adapter-options.js';
export type { ConfigHooks, OnToolCallHook, OnToolResultHook, OnTurnEndHook, ToolCallDecision, ToolCallHookEvent, ToolResultHookEvent, TurnEndHookEvent } from './contracts/agent-hooks.js';
