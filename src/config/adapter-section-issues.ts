import { closestName } from './closest-name.js';
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
