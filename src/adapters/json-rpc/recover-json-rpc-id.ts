export type JsonRpcId = string | number | null;

/**
 * The top-level `"id"` of a JSON-RPC message that will not be parsed (too large, too deep,
 * cut short), read from its first characters: a string or number id found at depth 1 is
 * returned, so the error can answer the request it belongs to. `null` when not found or
 * not a valid id (an object id, a nested one), as JSON-RPC prescribes.
 */
export function recoverJsonRpcId(head: string): JsonRpcId {
  let depth = 0;
  let i = 0;
  const n = head.length;
  while (i < n) {
    const c = head[i]!;
    if (c === '"') {
      const end = stringEnd(head, i);
      if (end < 0) return null;
      if (depth === 1) {
        const key = head.slice(i, end + 1);
        let j = skipSpace(head, end + 1);
        if (head[j] === ':') {
          j = skipSpace(head, j + 1);
          if (key === '"id"') return idAt(head, j);
          i = j;
          continue;
        }
      }
      i = end + 1;
      continue;
    }
    if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') depth--;
    i++;
  }
  return null;
}

function idAt(head: string, start: number): JsonRpcId {
  if (head[start] === '"') {
    const end = stringEnd(head, start);
    if (end < 0) return null;
    try {
      return JSON.parse(head.slice(start, end + 1)) as string;
    } catch {
      return null;
    }
  }
  const number = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(head.slice(start, start + 40));
  if (!number) return null;
  const after = skipSpace(head, start + number[0].length);
  // A number cut off by the end of the head may be longer than what was read.
  if (after >= head.length || (head[after] !== ',' && head[after] !== '}')) return null;
  const value = Number(number[0]);
  return Number.isFinite(value) ? value : null;
}

/** Index of the closing quote of the string starting at `start`, or -1 when cut off. */
function stringEnd(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === '"') return i;
  }
  return -1;
}

function skipSpace(text: string, from: number): number {
  let i = from;
  while (i < text.length && (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r')) i++;
  return i;
}
