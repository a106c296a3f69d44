import type { ElicitRequestParams, ElicitResult } from '@modelcontextprotocol/client';
import type { AgentOutput, PermissionOption } from '../contracts/agent-output.js';

export interface AskElicitationOptions {
  sessionId: string;
  serverId: string;
  /** Sends the question into the session's event stream (the running turn's `emit`). */
  emit(event: AgentOutput): void;
  signal?: AbortSignal;
}

type FieldSchema = { type?: string; enum?: unknown[]; title?: string; description?: string };

/**
 * Forwards a server's elicitation to the user as a permission-style question: the choices are
 * the options, the answer becomes the elicitation result. What a question with options can
 * collect: a confirmation (no required fields), or one required field that is an enum or a
 * boolean. Anything richer (free text, several fields, a URL flow) is declined, with a notice
 * that says why, because guessing values on the user's behalf would be worse.
 */
export async function askElicitation(request: ElicitRequestParams, options: AskElicitationOptions): Promise<ElicitResult> {
  const { sessionId, serverId, emit } = options;
  const params = request as { mode?: string; message: string; requestedSchema?: { properties?: Record<string, FieldSchema>; required?: string[] } };
  const properties = params.requestedSchema?.properties ?? {};
  const required = params.requestedSchema?.required ?? [];
  const choices = params.mode === 'url' ? undefined : choicesFor(properties, required);
  if (!choices) {
    emit({
      type: 'notice',
      sessionId,
      level: 'warning',
      message: `MCP server "${serverId}" asked for input this client cannot collect ("${params.message}"); declined.`,
    });
    return { action: 'decline' };
  }
  const byId = new Map(choices.map((choice, index) => [`elicit-${index}`, choice]));
  const permissionOptions: PermissionOption[] = [
    ...[...byId].map(([optionId, choice]) => ({ optionId, name: choice.label, kind: 'allow_once' as const })),
    { optionId: 'decline', name: 'Decline', kind: 'reject_once' },
  ];
  // An abort that already happened would never fire the listener below: nobody is left to answer.
  if (options.signal?.aborted) return { action: 'cancel' };
  return new Promise<ElicitResult>((resolve) => {
    const onAbort = () => resolve({ action: 'cancel' });
    options.signal?.addEventListener('abort', onAbort, { once: true });
    emit({
      type: 'permission-request',
      sessionId,
      toolCallId: `elicitation-${serverId}-${Date.now().toString(36)}`,
      title: `${serverId} asks: ${params.message}`,
      kind: 'other',
      input: params.requestedSchema ?? {},
      options: permissionOptions,
      respond(decision) {
        options.signal?.removeEventListener('abort', onAbort);
        if (decision.outcome === 'cancelled') return resolve({ action: 'cancel' });
        const choice = byId.get(decision.optionId);
        resolve(choice ? { action: 'accept', content: choice.content } : { action: 'decline' });
      },
    });
  });
}

interface Choice {
  label: string;
  content: Record<string, string | number | boolean>;
}

function choicesFor(properties: Record<string, FieldSchema>, required: readonly string[]): Choice[] | undefined {
  if (required.length === 0) return [{ label: 'Accept', content: {} }];
  if (required.length > 1) return undefined;
  const name = required[0]!;
  const field = properties[name];
  if (!field) return undefined;
  if (field.type === 'boolean') {
    return [
      { label: 'Yes', content: { [name]: true } },
      { label: 'No', content: { [name]: false } },
    ];
  }
  const values = field.enum?.filter((value): value is string | number => typeof value === 'string' || typeof value === 'number');
  if (!values || values.length === 0) return undefined;
  return values.map((value) => ({ label: String(value), content: { [name]: value } }));
}
