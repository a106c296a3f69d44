import type { z } from 'zod';
import { closestName } from './closest-name.js';
import type { ConfigIssue } from './config-error.js';

type Def = { type?: string; shape?: Record<string, z.ZodType>; innerType?: z.ZodType; in?: z.ZodType; element?: z.ZodType; valueType?: z.ZodType };

/**
 * For an unknown key at `path` (`agent.maxStep`), the key of that object it is a typo of, as
 * `did you mean agent.maxSteps?`; `undefined` when none is close or the schema there is not a
 * plain object (a union, a record of custom sections).
 */
export function unknownKeyHint(schema: z.ZodType, path: string): string | undefined {
  const segments = path.split('.');
  const key = segments.pop()!;
  let at: z.ZodType | undefined = schema;
  for (const segment of segments) at = childOf(at, segment);
  const shape = defOf(unwrap(at))?.shape;
  const meant = shape ? closestName(key, Object.keys(shape)) : undefined;
  return meant === undefined ? undefined : `did you mean ${[...segments, meant].join('.')}?`;
}

/** `issues` with each unknown key's message naming the key it was likely meant to be. */
export function withKeyHints(schema: z.ZodType, issues: readonly ConfigIssue[]): ConfigIssue[] {
  return issues.map((issue) => {
    const hint = issue.message === 'unknown key' ? unknownKeyHint(schema, issue.path) : undefined;
    return hint ? { ...issue, message: `${issue.message} (${hint})` } : issue;
  });
}

function childOf(schema: z.ZodType | undefined, segment: string): z.ZodType | undefined {
  const def = defOf(unwrap(schema));
  if (def?.type === 'object') return def.shape?.[segment];
  if (def?.type === 'array') return def.element;
  if (def?.type === 'record') return def.valueType;
  return undefined;
}

/** Through optional, default, prefault, nullable and pipe wrappers to the schema that holds the shape. */
function unwrap(schema: z.ZodType | undefined): z.ZodType | undefined {
  let current = schema;
  for (let depth = 0; depth < 8 && current; depth++) {
    const def = defOf(current);
    const inner = def?.innerType ?? (def?.type === 'pipe' ? def.in : undefined);
    if (!inner) return current;
    current = inner;
  }
  return current;
}

function defOf(schema: z.ZodType | undefined): Def | undefined {
  return (schema as { _zod?: { def?: Def } } | undefined)?._zod?.def;
}
