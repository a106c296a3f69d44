import { z } from 'zod';
import type { PlaitedConfig } from '../config/schema.js';
import { defineTool } from '../tools/define-tool.js';
import type { Tool, ToolContext, ToolResult } from '../contracts/tool.js';

export interface SubagentRequest {
  /** `agents.<name>` in config, or undefined for a general helper with the parent's tools. */
  agent: string | undefined;
  prompt: string;
  description: string;
}

/** Runs one child turn and returns what the parent's model reads. */
export type RunSubagent = (request: SubagentRequest, context: ToolContext) => Promise<ToolResult>;

/** A counting semaphore: at most `limit` holders at once, served in request order. */
export class Semaphore {
  #active = 0;
  readonly #waiting: Array<() => void> = [];
  constructor(private readonly limit: number) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.#active >= this.limit) await new Promise<void>((resolve) => this.#waiting.push(resolve));
    this.#active++;
    try {
      return await task();
    } finally {
      this.#active--;
      this.#waiting.shift()?.();
    }
  }
}

/**
 * The `task` tool: hands a self-contained job to a child agent with its own session.
 * Several calls in one step run in parallel (the loop runs calls in parallel), at most
 * `maxParallel` at once; each child gets a copy of its input.
 */
export function createTaskTool(options: {
  agents: PlaitedConfig['agents'];
  maxParallel: number;
  run: RunSubagent;
}): Tool<{ agent?: string; prompt: string; description?: string }> {
  const names = Object.keys(options.agents);
  const limiter = new Semaphore(options.maxParallel);
  const catalog = names.map((name) => `- ${name}: ${options.agents[name]!.description}`).join('\n');
  return defineTool({
    name: 'task',
    description:
      'Start a sub-agent on a self-contained task; it works in its own session and returns its final answer. ' +
      'Several task calls in one reply run in parallel.' +
      (catalog ? `\nAgents:\n${catalog}` : ''),
    parameters: z.object({
      agent: (names.length > 0 ? z.enum(names as [string, ...string[]]) : z.string())
        .optional()
        .describe('Which configured agent; omit for a general helper'),
      prompt: z.string().min(1).describe('Everything the sub-agent needs to know: it does not see this conversation'),
      description: z.string().optional().describe('A short title for the task'),
    }),
    // The child's own tool calls go through policy and permission in its session.
    risk: 'read',
    kind: 'think',
    title: (args) => `Task${args.agent ? ` (${args.agent})` : ''}: ${args.description ?? args.prompt.slice(0, 60)}`,
    async execute(args, context) {
      const request: SubagentRequest = structuredClone({ agent: args.agent, prompt: args.prompt, description: args.description ?? '' });
      if (request.agent !== undefined && !options.agents[request.agent]) {
        return { content: [{ type: 'text', text: `Unknown agent "${request.agent}". Known: ${names.join(', ') || '(none)'}.` }], isError: true };
      }
      return limiter.run(() => options.run(request, context));
    },
  });
}
