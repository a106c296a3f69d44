/**
 * The typed events an agent turn yields. Protocol-agnostic: ACP's `session/update`
 * kinds map onto these one to one (see src/adapters/acp/), MCP progress maps onto them too.
 * Every event except `permission-request` is plain data, so it can be stored and replayed.
 */

/** ACP's tool kinds; used by clients to pick icons and grouping. */
export type ToolKind =
  | 'read'
  | 'edit'
  | 'delete'
  | 'move'
  | 'search'
  | 'execute'
  | 'think'
  | 'fetch'
  | 'switch_mode'
  | 'other';

export type ToolCallStatus = 'pending' | 'in_progress' | 'completed' | 'failed';

export type ToolCallLocation = { path: string; line?: number };

/** What a client shows for a tool call (ACP ToolCallContent). */
export type ToolCallContent =
  | { type: 'text'; text: string }
  | { type: 'diff'; path: string; oldText: string | null; newText: string }
  | { type: 'terminal'; terminalId: string };

/** User input and content the agent receives (a subset of ACP ContentBlock, protocol-neutral). */
export type ContentPart =
  | { type: 'text'; text: string }
  | { type: 'image'; data: string; mimeType: string; uri?: string }
  | { type: 'resource'; uri: string; mimeType?: string; text?: string; blob?: string }
  | { type: 'resource_link'; uri: string; name: string; mimeType?: string; description?: string };

export type StopReason = 'end_turn' | 'max_tokens' | 'max_turn_requests' | 'refusal' | 'cancelled';

export type PlanEntry = {
  content: string;
  priority: 'high' | 'medium' | 'low';
  status: 'pending' | 'in_progress' | 'completed';
};

export type PermissionOptionKind = 'allow_once' | 'allow_always' | 'reject_once' | 'reject_always';
export type PermissionOption = { optionId: string; name: string; kind: PermissionOptionKind };
/**
 * `cancelled` when the turn was cancelled while the question was open. `reason`, with a reject
 * that no person chose (a headless run, a host that cannot be asked, a question that timed out):
 * the model is told it instead of "the user rejected", so it does not try variants nobody can approve.
 */
export type PermissionDecision = { outcome: 'selected'; optionId: string; reason?: string } | { outcome: 'cancelled' };

/**
 * What went wrong: a code, the message naming cause and fix, and for `model_call_failed` the
 * reason in one word (`auth`, `unreachable`, `rate_limited`, … : `ModelCallFailureReason`).
 */
export type AgentErrorInfo = { code: string; message: string; reason?: string };

type WithSession<T> = T & { sessionId: string };

export type AgentOutput =
  /** `messageId`: the id a protocol gave the prompt (ACP v2 `session/prompt` answers it), stored so a replay keeps it. */
  | WithSession<{ type: 'user-message'; content: ContentPart[]; messageId?: string }>
  | WithSession<{ type: 'text-delta'; text: string }>
  | WithSession<{ type: 'thought-delta'; text: string }>
  | WithSession<{
      type: 'tool-call';
      toolCallId: string;
      toolName: string;
      title: string;
      kind: ToolKind;
      status: ToolCallStatus;
      input: unknown;
      locations?: ToolCallLocation[];
      /** Set on nested calls (sub-agents): the parent tool call's id. */
      parentToolCallId?: string;
    }>
  | WithSession<{
      type: 'tool-call-update';
      toolCallId: string;
      status?: ToolCallStatus;
      title?: string;
      content?: ToolCallContent[];
      locations?: ToolCallLocation[];
      /** The raw result handed back to the model. */
      output?: unknown;
      /** On `in_progress`: the call can be cancelled alone (`Agent.cancelToolCall`) until its final status. */
      cancellable?: boolean;
      /** On the final (`failed`) status: the user cancelled this call alone. */
      cancelled?: boolean;
    }>
  | WithSession<{
      type: 'permission-request';
      toolCallId: string;
      title: string;
      kind: ToolKind;
      input: unknown;
      /** What the call would change (the tool's preview: a diff), when it can say. */
      content?: ToolCallContent[];
      options: PermissionOption[];
      /** Answer the question; the turn waits until this is called (or the turn is cancelled). */
      respond: (decision: PermissionDecision) => void;
      /** Aborted when the question no longer matters (the turn was cancelled, or a steering message superseded the call). */
      signal?: AbortSignal;
    }>
  | WithSession<{ type: 'plan'; entries: PlanEntry[] }>
  | WithSession<{
      type: 'usage';
      inputTokens: number;
      outputTokens: number;
      totalTokens: number;
      /** Tokens in the context after the turn's last step (its prompt plus its output). */
      contextTokens?: number;
      /** Input tokens read from the provider's prompt cache (included in inputTokens), when it reports them. */
      cacheReadTokens?: number;
      /** Input tokens written to the provider's prompt cache (included in inputTokens), when it reports them. */
      cacheWriteTokens?: number;
    }>
  | WithSession<{ type: 'mode-change'; modeId: string }>
  | WithSession<{ type: 'notice'; level: 'info' | 'warning' | 'error'; message: string }>
  /** Slash commands the client may offer (ACP `available_commands_update`), e.g. loaded skills. */
  | WithSession<{ type: 'commands'; commands: Array<{ name: string; description: string; hint?: string }> }>
  /** The history sent to the model was compacted (ACP `compaction_update`); the stored history is untouched. */
  | WithSession<{
      type: 'compaction';
      compactionId: string;
      status: 'in_progress' | 'completed' | 'failed';
      summary?: string;
      error?: string;
    }>
  /**
   * A command's own terminal (the agent runs it; ACP v2 `terminal_update`): started, with a way
   * to stop it while it runs. Live only: terminal events are not stored (the tool's result is).
   */
  | WithSession<{
      type: 'terminal-start';
      terminalId: string;
      /** The tool call that started it. */
      toolCallId?: string;
      command: string;
      cwd: string;
      /** Keeps running after its tool call returned (a background command). */
      background?: boolean;
      /** Stops the process (and its children); its `terminal-exit` follows. */
      cancel: () => void;
    }>
  /** Bytes the command wrote (stdout and stderr interleaved), base64. */
  | WithSession<{ type: 'terminal-output'; terminalId: string; data: string }>
  | WithSession<{ type: 'terminal-exit'; terminalId: string; exitCode: number | null; signal: string | null }>
  | WithSession<{ type: 'turn-end'; stopReason: StopReason }>
  | WithSession<{ type: 'error'; error: AgentErrorInfo }>;

export type AgentOutputType = AgentOutput['type'];

/** Events that are persisted and replayed by `session/load` (everything but live questions and terminals). */
export type StoredAgentOutput = Exclude<AgentOutput, { type: 'permission-request' | 'terminal-start' | 'terminal-output' | 'terminal-exit' }>;

export function isStorable(event: AgentOutput): event is StoredAgentOutput {
  return event.type !== 'permission-request' && !event.type.startsWith('terminal-');
}
