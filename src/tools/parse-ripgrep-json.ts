/** One line of ripgrep's `--json` output that we show: a match or a context line. */
export interface RipgrepLine {
  kind: 'match' | 'context';
  path: string;
  lineNumber: number;
  text: string;
}

/** rg encodes text that is not valid UTF-8 as base64 `bytes` instead of `text`. */
type RgData = { text?: string; bytes?: string };
type RgMessage = {
  type: string;
  data?: { path?: RgData; lines?: RgData; line_number?: number | null };
};

/**
 * Parses `rg --json` output into match and context lines, in order. Lines that
 * are not JSON (a cut-off last line when the output was capped) are skipped.
 */
export function parseRipgrepJson(output: string): RipgrepLine[] {
  const result: RipgrepLine[] = [];
  for (const raw of output.split('\n')) {
    if (!raw.startsWith('{')) continue;
    let message: RgMessage;
    try {
      message = JSON.parse(raw) as RgMessage;
    } catch {
      continue;
    }
    if (message.type !== 'match' && message.type !== 'context') continue;
    const data = message.data;
    if (!data?.path || !data.lines || typeof data.line_number !== 'number') continue;
    result.push({
      kind: message.type,
      path: decode(data.path),
      lineNumber: data.line_number,
      text: decode(data.lines).replace(/\r?\n$/, ''),
    });
  }
  return result;
}

function decode(data: RgData): string {
  if (data.text !== undefined) return data.text;
  return Buffer.from(data.bytes ?? '', 'base64').toString('utf8');
}
