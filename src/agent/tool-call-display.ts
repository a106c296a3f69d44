import type { ToolKind } from '../contracts/agent-output.js';
import type { StepToolCall } from './stream-model-step.js';
import type { AnyTool } from '../contracts/tool.js';
import { terminalSafe } from './terminal-safe.js';

/**
 * How a client shows a call: the tool's own title for its input, else its name (a throwing title
 * is cosmetic). Arguments that did not parse (or passed the cap) are not its input: the name says so ("Read undefined" did not).
 * The model wrote the input (and an unknown tool's name): control characters show as escapes, so a
 * client that prints the title on a terminal shows what will run, not what an escape sequence draws.
 */
export function toolCallTitle(tool: AnyTool | undefined, call: StepToolCall): string {
  return terminalSafe(rawTitle(tool, call));
}

function rawTitle(tool: AnyTool | undefined, call: StepToolCall): string {
  if (!tool) return call.toolName;
  if (call.invalidReason !== undefined) return `${tool.name} (invalid arguments)`;
  try {
    return tool.title?.(call.input) ?? tool.name;
  } catch {
    return tool.name;
  }
}

/** The tool's declared kind, else one derived from its risk; `other` for an unknown tool. */
export function toolCallKind(tool: AnyTool | undefined): ToolKind {
  if (!tool) return 'other';
  return tool.kind ?? (tool.risk === 'read' ? 'read' : tool.risk === 'write' ? 'edit' : 'execute');
}
