import { z } from 'zod';
import { defineTool } from './define-tool.js';
import type { AnyTool, ToolContext } from '../contracts/tool.js';
import { errorResult, textResult } from './tool-result.js';
import type { BackgroundCommands, BackgroundSnapshot } from '../contracts/tool.js';

const idParameter = z.strictObject({
  id: z.string().min(1).describe('The background command id that bash returned (bg-…).'),
});

/** Reads new output of a background command (started by bash with `background: true`). */
export const bashOutputTool: AnyTool = defineTool({
  name: 'bash_output',
  description:
    'Read what a background command (bash with background: true) printed since the last read, and whether it still runs or how it ended. ' +
    'Without an id, lists the background commands of this session.',
  parameters: z.strictObject({ id: idParameter.shape.id.optional() }),
  risk: 'read',
  kind: 'execute',
  title: (args) => (args.id ? `Output of ${args.id}` : 'List background commands'),
  async execute(args, context) {
    const background = requireBackground(context);
    if (!background) return errorResult('No background commands here.');
    if (!args.id) {
      const all = background.list(context.sessionId);
      if (all.length === 0) return textResult('No background commands in this session.');
      return textResult(all.map((entry) => `${entry.id}: ${entry.running ? 'running' : 'ended'} — ${entry.command}`).join('\n'));
    }
    const snapshot = background.read(context.sessionId, args.id);
    if (!snapshot) return errorResult(`No background command "${args.id}" in this session (an ended one is forgotten once its last output was read).`);
    return textResult(describeBackground(snapshot));
  },
});

/** Stops a background command (and everything it started). */
export const bashKillTool: AnyTool = defineTool({
  name: 'bash_kill',
  description: 'Stop a background command started by bash with background: true (its child processes too), and return its last output.',
  parameters: idParameter,
  // It stops only a command this session started itself.
  risk: 'read',
  kind: 'execute',
  title: (args) => `Stop ${args.id}`,
  async execute(args, context) {
    const background = requireBackground(context);
    if (!background || !(await background.kill(context.sessionId, args.id))) return errorResult(`No background command "${args.id}" in this session.`);
    const snapshot = background.read(context.sessionId, args.id);
    return textResult(snapshot ? describeBackground(snapshot) : `Stopped ${args.id}.`);
  },
});

export function describeBackground(snapshot: BackgroundSnapshot): string {
  const status = snapshot.running
    ? 'Status: running.'
    : snapshot.exitCode !== null
      ? `Status: ended, exit code ${snapshot.exitCode}.`
      : `Status: ended${snapshot.signal ? ` by ${snapshot.signal}` : ''}.`;
  const output = snapshot.output.length > 0 ? snapshot.output.replace(/\n$/, '') : '(no new output)';
  return `${status}\n${snapshot.truncated ? '(earlier output dropped: showing the tail)\n' : ''}${output}`;
}

function requireBackground(context: ToolContext): BackgroundCommands | undefined {
  return context.background;
}
