import { z } from 'zod';
import { defineTool } from '../tools/define-tool.js';
import type { Tool } from '../contracts/tool.js';
import { errorResult, textResult } from '../tools/tool-result.js';
import { ContextError } from './context-error.js';
import type { RelationStore } from './relation-store.js';
import { planEntries, type PlanItemData, type SessionPlans } from './session-plans.js';

const status = z.enum(['pending', 'in_progress', 'completed']);
const priority = z.enum(['high', 'medium', 'low']);

const parameters = z.object({
  items: z
    .array(
      z.object({
        id: z.string().min(1).optional().describe('Id of an existing item to update; omit (or use a new id) to add an item.'),
        content: z.string().min(1).optional().describe('What the step is; required for a new item.'),
        status: status.optional().describe('Default for new items: pending.'),
        priority: priority.optional().describe('Default for new items: medium.'),
        dependsOn: z.array(z.string()).optional().describe('Ids of items that must be done first (replaces the previous list).'),
      }),
    )
    .default([])
    .describe('Items to add or update.'),
  remove: z.array(z.string()).default([]).describe('Ids of items to delete.'),
  replace: z.boolean().default(false).describe('Start over: drop every existing item before applying `items`.'),
});

export type PlanToolArgs = z.output<typeof parameters>;

/**
 * `plan`: the model's task list. Each call is applied atomically to the session's plan
 * (a DAG, so items can depend on several others and cycles are refused); after every
 * change the whole plan goes to the client as a `plan` event (ACP plan updates replace
 * the previous list), which the core stores and replays on `session/load`.
 */
export function createPlanTool(plans: SessionPlans): Tool<PlanToolArgs> {
  return defineTool({
    name: 'plan',
    description:
      'Keep a task list for multi-step work: add steps, mark them in_progress/completed as you go, remove or replace them. ' +
      'Returns the plan with item ids to use in later updates.',
    parameters,
    risk: 'read',
    source: 'local',
    kind: 'think',
    title: (args) => `Update plan (${args.items.length} item${args.items.length === 1 ? '' : 's'})`,
    async execute(args, context) {
      const store = await plans.get(context.sessionId, context.runtime.cwd);
      try {
        store.transaction((draft) => applyPlanChanges(draft, args));
      } catch (error) {
        if (ContextError.isInstance(error)) return errorResult(`plan not changed: ${error.message}`);
        throw error;
      }
      await store.flush();
      const entries = planEntries(store);
      context.emit({ type: 'plan', sessionId: context.sessionId, entries });
      return textResult(renderPlan(store), { structured: { entries } });
    },
  });
}

export function applyPlanChanges(draft: RelationStore<PlanItemData>, args: PlanToolArgs): void {
  if (args.replace) for (const node of draft.all()) if (draft.has(node.id)) draft.remove(node.id);
  for (const id of args.remove) draft.remove(id);
  let next = nextId(draft);
  // Add every new item first, so items in one call may depend on each other in any order.
  const assigned = args.items.map((item) => {
    if (item.id && draft.has(item.id)) return item.id;
    if (!item.content) throw new ContextError('invalid-argument', `item ${item.id ? `"${item.id}" does not exist and ` : ''}needs "content" to be added`);
    let id = item.id;
    if (id === undefined) {
      // Skip numbers the model has used as explicit ids in this same call.
      while (draft.has(String(next)) || args.items.some((other) => other.id === String(next))) next++;
      id = String(next++);
    }
    draft.add({ id, type: 'task', status: item.status ?? 'pending', data: { content: item.content, priority: item.priority ?? 'medium' } });
    return id;
  });
  args.items.forEach((item, index) => {
    const id = assigned[index];
    const node = draft.get(id);
    if (!node) return;
    draft.update(id, {
      status: item.status,
      parents: item.dependsOn,
      data: { content: item.content ?? node.data.content, priority: item.priority ?? node.data.priority },
    });
  });
}

/** One line per item, with its id, so the model can refer to items later. */
export function renderPlan(store: RelationStore<PlanItemData>): string {
  if (store.size === 0) return 'The plan is empty.';
  return store.toContext(undefined, (node) => `${node.data.content} [${node.data.priority}]`);
}

function nextId(store: RelationStore<PlanItemData>): number {
  const numeric = store.all().map((node) => Number(node.id)).filter((value) => Number.isInteger(value));
  return numeric.length ? Math.max(...numeric) + 1 : 1;
}
