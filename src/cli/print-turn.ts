import type { Agent } from '../agent/agent.js';
import type { AgentOutput, StopReason } from '../contracts/agent-output.js';
import type { OutputFormat } from './print-args.js';
import { applyToolCallUpdate } from '../agent/apply-tool-call-update.js';
import { rejectOnce } from '../agent/reject-once.js';
import type { PrintOutput } from './print-output.js';

/** A tool call of the turn as `-p --output-format json` reports it. */
export interface PrintedToolCall {
  id: string;
  name: string;
  title: string;
  status: string;
  input: unknown;
  /** Text the tool showed (its result, or why it failed). */
  output?: string;
}

/** A call that would have asked: refused, since no one can answer in a headless run. */
export interface RefusedPermission {
  toolCallId: string;
  title: string;
  reason: string;
}

/** What one headless turn produced: the `json` output, and the exit code's source. */
export interface PrintResult {
  type: 'result';
  sessionId: string;
  result: string;
  stopReason: StopReason | 'error';
  usage?: { inputTokens: number; outputTokens: number; totalTokens: number };
  toolCalls: PrintedToolCall[];
  refusedPermissions: RefusedPermission[];
  /** `reason`: why a model call failed, in one word (`auth`, `unreachable`, …), beside the code `model_call_failed`. */
  error?: { code: string; message: string; reason?: string };
}

export interface PrintTurnOptions {
  format: OutputFormat;
  stdout: Pick<PrintOutput, 'write'>;
  /** One line for a human (refusals, notices): stderr. */
  report: (line: string) => void;
  signal: AbortSignal;
}

const REFUSED = 'it would ask for permission, and a headless run (-p) has no one to ask; allow it with --allow TOOL (or "TOOL(scope)") or --mode accept-edits';

/** Runs one turn, writing its answer as it comes (`text`, `stream-json`), and sums it up. */
export async function printTurn(agent: Agent, sessionId: string, prompt: string, options: PrintTurnOptions): Promise<PrintResult> {
  const { format, stdout } = options;
  const result: PrintResult = { type: 'result', sessionId, result: '', stopReason: 'end_turn', toolCalls: [], refusedPermissions: [] };
  const calls = new Map<string, PrintedToolCall>();
  const events = agent.process({ sessionId, prompt: [{ type: 'text', text: prompt }] }, { signal: options.signal });
  for await (const event of events) {
    if (format === 'stream-json') stdout.write(`${JSON.stringify(plainEvent(event))}\n`);
    switch (event.type) {
      case 'text-delta':
        result.result += event.text;
        if (format === 'text') stdout.write(event.text);
        break;
      case 'tool-call':
        calls.set(event.toolCallId, { id: event.toolCallId, name: event.toolName, title: event.title, status: event.status, input: event.input });
        break;
      case 'tool-call-update': {
        const call = calls.get(event.toolCallId);
        if (!call) break;
        applyToolCallUpdate(call, event);
        break;
      }
      case 'permission-request': {
        event.respond(rejectOnce(event.options, REFUSED));
        result.refusedPermissions.push({ toolCallId: event.toolCallId, title: event.title, reason: REFUSED });
        options.report(`refused ${event.title}: ${REFUSED}`);
        if (format === 'stream-json') stdout.write(`${JSON.stringify({ type: 'permission-refused', sessionId, toolCallId: event.toolCallId, title: event.title, reason: REFUSED })}\n`);
        break;
      }
      case 'usage':
        result.usage = { inputTokens: event.inputTokens, outputTokens: event.outputTokens, totalTokens: event.totalTokens };
        break;
      case 'notice':
        options.report(`${event.level}: ${event.message}`);
        break;
      case 'turn-end':
        result.stopReason = event.stopReason;
        break;
      case 'error':
        result.stopReason = 'error';
        result.error = event.error;
        break;
      default:
        break;
    }
  }
  if (options.signal.aborted && result.stopReason !== 'error') result.stopReason = 'cancelled';
  result.toolCalls = [...calls.values()];
  if (format === 'text' && result.result.length > 0 && !result.result.endsWith('\n')) stdout.write('\n');
  return result;
}

/** The event as JSON data: its callbacks (`respond`, `cancel`) and abort signal left out. */
function plainEvent(event: AgentOutput): Record<string, unknown> {
  const plain: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(event)) {
    if (typeof value === 'function' || key === 'signal') continue;
    plain[key] = value;
  }
  return plain;
}
