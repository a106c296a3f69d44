/**
 * A deterministic synthetic MCP catalog for scale benchmarks: ~300 servers over a few
 * dozen domains, 10,000 tools with names in every convention (snake, camel, kebab), empty
 * descriptions next to ones of a few hundred words, near-duplicates across servers, and
 * requests phrased the way users write them.
 */
import type { IndexDocument } from '../src/retrieval/search-index.js';

const DOMAINS: Record<string, { nouns: string[]; words: string[] }> = {
  files: { nouns: ['file', 'directory', 'path', 'symlink', 'archive'], words: ['disk', 'folder', 'contents', 'bytes', 'encoding'] },
  git: { nouns: ['commit', 'branch', 'tag', 'diff', 'remote'], words: ['repository', 'history', 'merge', 'rebase', 'author'] },
  issues: { nouns: ['issue', 'comment', 'label', 'milestone', 'assignee'], words: ['bug', 'tracker', 'triage', 'priority', 'backlog'] },
  chat: { nouns: ['message', 'channel', 'thread', 'reaction', 'user'], words: ['slack', 'conversation', 'mention', 'emoji', 'team'] },
  mail: { nouns: ['email', 'draft', 'mailbox', 'attachment', 'contact'], words: ['inbox', 'recipient', 'subject', 'reply', 'spam'] },
  calendar: { nouns: ['event', 'meeting', 'reminder', 'invite', 'availability'], words: ['schedule', 'agenda', 'timezone', 'attendee', 'room'] },
  weather: { nouns: ['forecast', 'alert', 'observation', 'radar', 'station'], words: ['temperature', 'rain', 'wind', 'humidity', 'storm'] },
  maps: { nouns: ['route', 'place', 'address', 'direction', 'distance'], words: ['navigation', 'traffic', 'coordinates', 'nearby', 'geocode'] },
  database: { nouns: ['table', 'query', 'row', 'index', 'schema'], words: ['sql', 'postgres', 'column', 'transaction', 'migration'] },
  cloud: { nouns: ['instance', 'bucket', 'function', 'cluster', 'volume'], words: ['deploy', 'region', 'scaling', 'container', 'kubernetes'] },
  payments: { nouns: ['invoice', 'payment', 'refund', 'customer', 'subscription'], words: ['stripe', 'charge', 'billing', 'currency', 'receipt'] },
  docs: { nouns: ['document', 'page', 'section', 'template', 'comment'], words: ['wiki', 'notion', 'markdown', 'outline', 'editor'] },
  search: { nouns: ['result', 'query', 'snippet', 'source', 'citation'], words: ['web', 'engine', 'crawl', 'ranking', 'keyword'] },
  browser: { nouns: ['tab', 'screenshot', 'element', 'cookie', 'download'], words: ['click', 'navigate', 'dom', 'headless', 'selector'] },
  music: { nouns: ['track', 'playlist', 'album', 'artist', 'lyric'], words: ['song', 'spotify', 'genre', 'shuffle', 'queue'] },
  finance: { nouns: ['stock', 'quote', 'portfolio', 'dividend', 'exchange'], words: ['market', 'price', 'ticker', 'crypto', 'trading'] },
  health: { nouns: ['appointment', 'symptom', 'prescription', 'record', 'doctor'], words: ['patient', 'clinic', 'medicine', 'diagnosis', 'vitals'] },
  travel: { nouns: ['flight', 'hotel', 'booking', 'itinerary', 'visa'], words: ['airport', 'trip', 'reservation', 'luggage', 'destination'] },
  shopping: { nouns: ['product', 'cart', 'order', 'review', 'coupon'], words: ['store', 'discount', 'shipping', 'checkout', 'wishlist'] },
  monitoring: { nouns: ['metric', 'log', 'trace', 'alert', 'dashboard'], words: ['latency', 'error', 'uptime', 'incident', 'grafana'] },
  images: { nouns: ['image', 'thumbnail', 'filter', 'layer', 'palette'], words: ['photo', 'resize', 'crop', 'pixel', 'render'] },
  translation: { nouns: ['translation', 'glossary', 'language', 'subtitle', 'locale'], words: ['translate', 'french', 'spanish', 'dictionary', 'phrase'] },
  notes: { nouns: ['note', 'notebook', 'tag', 'checklist', 'bookmark'], words: ['memo', 'journal', 'jot', 'highlight', 'todo'] },
  security: { nouns: ['secret', 'certificate', 'vulnerability', 'token', 'policy'], words: ['scan', 'cve', 'audit', 'encryption', 'permission'] },
};
const VERBS = ['get', 'list', 'create', 'update', 'delete', 'search', 'find', 'add', 'remove', 'export', 'import', 'share', 'move', 'copy', 'archive', 'restore'];
const FILLER = 'This tool is part of the integration and follows the provider API closely. Results are paginated; pass the cursor from a previous call to continue. Errors are returned as structured objects with a code and a message. Rate limits apply per account and per minute.'.split(' ');

/** Small deterministic PRNG (mulberry32) so every run builds the same catalog. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface SyntheticCatalog {
  /** Documents grouped by server namespace. */
  servers: Map<string, IndexDocument[]>;
  queries: string[];
  size: number;
}

export function syntheticCatalog(options: { tools?: number; servers?: number; queries?: number; seed?: number } = {}): SyntheticCatalog {
  const toolCount = options.tools ?? 10_000;
  const serverCount = options.servers ?? 300;
  const next = random(options.seed ?? 42);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)];
  const domains = Object.keys(DOMAINS);
  const servers = new Map<string, IndexDocument[]>();
  const serverInfo: { id: string; domain: string; description: string }[] = [];
  for (let s = 0; s < serverCount; s++) {
    const domain = domains[s % domains.length];
    const id = `${domain}-${pick(['cloud', 'local', 'pro', 'hub', 'api', 'io', 'kit', 'ops'])}-${s}`;
    const words = DOMAINS[domain].words;
    serverInfo.push({ id, domain, description: `MCP server for ${domain}: ${words.join(', ')}.` });
    servers.set(id, []);
  }
  const seen = new Set<string>();
  for (let t = 0; t < toolCount; t++) {
    const server = serverInfo[t % serverCount];
    const { nouns, words } = DOMAINS[server.domain];
    const verb = pick(VERBS);
    const noun = pick(nouns);
    const qualifier = pick(['', '', 'by_id', 'batch', 'details', 'status', 'history', 'v2']);
    const parts = [verb, noun, ...(qualifier ? qualifier.split('_') : [])];
    let name = pick(['snake', 'snake', 'camel', 'kebab']) === 'camel'
      ? parts[0] + parts.slice(1).map((part) => part[0].toUpperCase() + part.slice(1)).join('')
      : parts.join(next() < 0.8 ? '_' : '-');
    const idOf = (tool: string) => `tool:mcp__${server.id.replace(/[^A-Za-z0-9]/g, '_')}__${tool.replace(/[^A-Za-z0-9]/g, '_')}`;
    while (seen.has(idOf(name))) name = `${name}_${Math.floor(next() * 100)}`;
    seen.add(idOf(name));
    const shape = next();
    const description =
      shape < 0.08
        ? ''
        : shape < 0.85
          ? `${verb[0].toUpperCase()}${verb.slice(1)} a ${noun} in ${pick(words)} ${pick(words)}. Returns the ${noun} ${pick(['id', 'details', 'list', 'status'])}.`
          : Array.from({ length: 120 + Math.floor(next() * 200) }, (_, i) => (i % 9 === 0 ? pick(words) : pick(FILLER))).join(' ');
    const args = [`${noun}_id: The ${noun}.`, `${pick(words)}: Optional ${pick(words)} filter.`, 'limit: How many results.'].join(' ');
    servers.get(server.id)?.push({
      id: idOf(name),
      kind: 'tool',
      namespace: server.id,
      fields: { name, description, args, group: server.description },
    });
  }
  const queries = Array.from({ length: options.queries ?? 200 }, () => {
    const domain = pick(domains);
    const { nouns, words } = DOMAINS[domain];
    return `${pick(['please', 'can you', 'I need to', 'help me', ''])} ${pick(VERBS)} the ${pick(nouns)} ${pick(['for', 'in', 'from', 'about'])} ${pick(words)} ${pick(words)}`.trim();
  });
  return { servers, queries, size: toolCount };
}
