import type { z } from 'zod';
import type { ConfigIssue } from './config-error.js';

/**
 * Flattens zod issues into one line per problem with a dotted path. An unknown key
 * is reported at its own path (`agent.maxStep`), not at the object holding it, and a
 * failed union says what each alternative wanted.
 */
export function configIssues(error: z.ZodError): ConfigIssue[] {
  return error.issues.flatMap((issue) => flatten(issue, []));
}

function flatten(issue: z.core.$ZodIssue, prefix: PropertyKey[]): ConfigIssue[] {
  const at = [...prefix, ...issue.path];
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((key) => ({ path: dotted([...at, key]), message: 'unknown key' }));
  }
  if (issue.code === 'invalid_union' && issue.errors.length > 0) {
    // A union with an authored message (e.g. the model spec) says it best on its own.
    const authored = issue.errors.flat().filter((inner) => inner.code === 'custom' && inner.path.length === 0);
    if (authored.length > 0) return authored.map((inner) => ({ path: dotted(at), message: inner.message }));
    const branches = issue.errors.map((branch) => branch.flatMap((inner) => flatten(inner, at)));
    // A branch that failed deeper than the union itself was the intended one: report it alone.
    const deeper = branches.filter((branch) => branch.some((inner) => inner.path !== dotted(at)));
    if (deeper.length === 1) return deeper[0]!;
    const messages = [...new Set(branches.flat().map((inner) => inner.message))];
    return [{ path: dotted(at), message: messages.join(', or ') }];
  }
  return [{ path: dotted(at), message: issue.message }];
}

function dotted(path: readonly PropertyKey[]): string {
  return path.map((segment) => String(segment)).join('.');
}
