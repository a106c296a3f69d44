import type { ToolKind } from '../contracts/agent-output.js';
import type { StepToolCall } from './stream-model-step.js';
import type { AnyTool } from '../contracts/tool.js';

/**
 * How a client shows a call: the tool's own title for its input, else its name (a throwing title
 * is cosmetic). Arguments that did not parse (or passed the cap) are not its input: the name says so ("Read undefined" did not).
 */
export function toolCallTitle(tool: AnyTool | undefined, call: StepToolCall): string {
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
