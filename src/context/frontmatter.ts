/**
 * Splits a markdown file into its YAML frontmatter and body. Returns an error string
 * instead of throwing: callers (the skill loader) turn it into a diagnostic.
 */
export type FrontmatterResult =
  | { ok: true; data: Record<string, unknown>; body: string; bodyStartLine: number }
  | { ok: false; error: string };

const OPEN = /^\uFEFF?---[ \t]*\r?\n/;

export async function parseFrontmatter(text: string): Promise<FrontmatterResult> {
  const open = OPEN.exec(text);
  if (!open) return { ok: false, error: 'missing YAML frontmatter (the file must start with a "---" line)' };
  const rest = text.slice(open[0].length);
  const close = /^---[ \t]*$/m.exec(rest);
  if (!close) return { ok: false, error: 'unterminated YAML frontmatter (no closing "---" line)' };
  const yamlText = rest.slice(0, close.index);
  // Loaded with the first skill: a start without skills does not compile the YAML parser (240 KB).
  const { parse } = await import('yaml');
  let data: unknown;
  try {
    data = parse(yamlText);
  } catch (error) {
    return { ok: false, error: `invalid YAML frontmatter: ${describeYamlError(error, yamlText)}` };
  }
  if (data === null || data === undefined) data = {};
  if (typeof data !== 'object' || Array.isArray(data)) {
    return { ok: false, error: 'YAML frontmatter must be a mapping of keys to values' };
  }
  const afterClose = rest.slice(close.index + close[0].length).replace(/^\r?\n/, '');
  const headerLines = text.length - afterClose.length > 0 ? text.slice(0, text.length - afterClose.length).split('\n').length : 1;
  return { ok: true, data: data as Record<string, unknown>, body: afterClose, bodyStartLine: headerLines };
}

/**
 * The parser's first line, with the line counted in the file (the parser counts from the first
 * line after `---`), that line quoted, and the usual cause named: an unquoted `: ` in a value
 * (`description: Use it: when …`), which YAML reads as a nested mapping.
 */
function describeYamlError(error: unknown, yamlText: string): string {
  const first = (error as Error).message.split('\n')[0];
  const line = (error as { linePos?: Array<{ line: number }> }).linePos?.[0]?.line;
  if (line === undefined) return first;
  const text = yamlText.split(/\r?\n/)[line - 1] ?? '';
  const where = `${first.replace(/ at line \d+, column \d+:?$/, '')} at line ${line + 1}${text.trim() ? `: ${JSON.stringify(text.trim().slice(0, 100))}` : ''}`;
  const key = /^\s*([\w-]+):\s+[^\s'"|>].*:\s/.exec(text)?.[1];
  return key ? `${where}; a value holding ": " must be quoted (${key}: "…")` : where;
}
