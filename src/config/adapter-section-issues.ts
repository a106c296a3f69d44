import type { ConfigIssue } from './config-error.js';

/** The sections of the built-in adapters under `adapters`. */
export const BUILTIN_ADAPTER_SECTIONS: readonly string[] = ['acp', 'mcp', 'sandbox', 'a2a'];

export interface AdapterSectionIssue extends ConfigIssue {
  /** The adapter name the key is a likely misspelling of: such a config is refused. */
  didYouMean?: string;
}

/**
 * The keys under `adapters` that no adapter of this run reads: neither a built-in's section nor
 * the `name` of a custom adapter that was loaded (`--adapter ./x.ts`). The schema cannot tell
 * them apart from a custom adapter's section, so they are checked once the adapters are known.
 * A key close to a known name (`acpp`, `Mcp`, `sandbx`) is a misspelling and names that name;
 * any other is a custom adapter's section this run does not load, ignored.
 */
export function adapterSectionIssues(adapters: object, loaded: readonly string[]): AdapterSectionIssue[] {
  const known = [...new Set([...BUILTIN_ADAPTER_SECTIONS, ...loaded])];
  const issues: AdapterSectionIssue[] = [];
  for (const key of Object.keys(adapters)) {
    if (known.includes(key)) continue;
    const closest = closestName(key, known);
    if (closest !== undefined) {
      issues.push({ path: `adapters.${key}`, message: `no adapter is named "${key}": did you mean adapters.${closest}?`, didYouMean: closest });
      continue;
    }
    issues.push({
      path: `adapters.${key}`,
      message:
        `no adapter named "${key}" is loaded, so this section is ignored (built-in sections: ${BUILTIN_ADAPTER_SECTIONS.join(', ')}; ` +
        `a custom adapter reads adapters.<its name> when loaded with --adapter ./file.ts)`,
    });
  }
  return issues;
}

/** The known name within a typo of `key` (one edit for short names, two from six letters on), if any. */
function closestName(key: string, known: readonly string[]): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const name of known) {
    const distance = editDistance(key.toLowerCase(), name.toLowerCase());
    const allowed = name.length >= 6 ? 2 : 1;
    if (distance <= allowed && (!best || distance < best.distance)) best = { name, distance };
  }
  return best?.name;
}

/** Optimal string alignment distance: insertions, deletions, substitutions and swaps of neighbours. */
function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) value = Math.min(value, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = value;
    }
  }
  return rows[a.length]![b.length]!;
}
