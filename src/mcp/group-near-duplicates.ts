import { cleanQuery } from '../retrieval/clean-query.js';
import { tokenize } from '../retrieval/tokenize.js';

export interface DuplicateCandidate {
  /** The tool's own name on its server (`write_file`, `puppeteer_navigate`). */
  toolName: string;
  serverId?: string;
  description: string;
}

export interface DuplicateGroup<T> {
  /** The best-ranked tool of the group. */
  first: T;
  /** The same job on other servers, in rank order. */
  alternatives: T[];
}

/** Below this share of common description words, two same-named tools do different jobs. */
export const DESCRIPTION_OVERLAP = 0.3;

/**
 * Groups near-duplicate tools from different servers (`write_file` on filesystem and on
 * desktop-commander) so one search result shows the job once with its alternatives, instead
 * of several copies taking every slot. Two tools are near-duplicates when their names say the
 * same once the server's own words are removed (its id, and a prefix most of its tools share:
 * `puppeteer_`, `browser_`, `maps_`), and their descriptions share enough words (Elasticsearch's
 * `search` is not a web search) or one has none. Tools of one server are never grouped: they
 * are different tools by construction. Rank order is kept.
 */
export function groupNearDuplicates<T>(
  items: readonly T[],
  view: (item: T) => DuplicateCandidate,
  serverWords: (serverId: string) => ReadonlySet<string>,
): DuplicateGroup<T>[] {
  const groups: Array<DuplicateGroup<T> & { key: string; servers: Set<string | undefined>; words: Set<string> }> = [];
  for (const item of items) {
    const candidate = view(item);
    const key = nameKey(candidate, serverWords);
    const words = new Set(cleanQuery(candidate.description).filter((word) => word.length > 2));
    const group = groups.find(
      (existing) => key !== '' && existing.key === key && !existing.servers.has(candidate.serverId) && similar(existing.words, words),
    );
    if (group) {
      group.alternatives.push(item);
      group.servers.add(candidate.serverId);
    } else {
      groups.push({ first: item, alternatives: [], key, servers: new Set([candidate.serverId]), words });
    }
  }
  return groups.map(({ first, alternatives }) => ({ first, alternatives }));
}

/**
 * The words a server puts in most of its tool names (`browser` in playwright's `browser_click`,
 * `browser_navigate`, …) plus its id's words: they name the server, not the job.
 */
export function commonNameWords(serverId: string, toolNames: readonly string[]): Set<string> {
  const words = new Set(tokenize(serverId));
  if (toolNames.length < 3) return words;
  const counts = new Map<string, number>();
  for (const name of toolNames) for (const word of new Set(tokenize(name))) counts.set(word, (counts.get(word) ?? 0) + 1);
  for (const [word, count] of counts) if (count > toolNames.length / 2) words.add(word);
  return words;
}

function nameKey(candidate: DuplicateCandidate, serverWords: (serverId: string) => ReadonlySet<string>): string {
  const own = candidate.serverId ? serverWords(candidate.serverId) : new Set<string>();
  const words = tokenize(candidate.toolName);
  const kept = words.filter((word) => !own.has(word));
  return (kept.length > 0 ? kept : words).sort().join(' ');
}

function similar(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  if (a.size === 0 || b.size === 0) return true;
  let shared = 0;
  for (const word of a) if (b.has(word)) shared++;
  return shared / Math.min(a.size, b.size) >= DESCRIPTION_OVERLAP;
}
