import { fileURLToPath } from 'node:url';

/** Where a file's syntax error is and what it is, as the TypeScript-aware parser that loads configs reports it. */
export interface SyntaxErrorLocation {
  line: number;
  column: number;
  message: string;
}

/** jiti answers a file it cannot parse with this stub instead of throwing. */
const JITI_ERROR = /__JITI_ERROR__ = (\{.*\})/;

/**
 * The first syntax error of `source`, found by transpiling it (jiti's Babel, as a config is loaded),
 * never by running it; `undefined` when the parser finds none or answers in a shape it no longer has.
 */
export async function locateSyntaxError(source: string, filename: string): Promise<SyntaxErrorLocation | undefined> {
  const { createJiti } = await import('jiti');
  const jiti = createJiti(fileURLToPath(import.meta.url), { fsCache: false, moduleCache: false });
  const code = jiti.transform({ source, filename, ts: /\.[cm]?tsx?$/.test(filename) });
  const stub = JITI_ERROR.exec(code)?.[1];
  if (stub === undefined) return undefined;
  try {
    const { line, column, message } = JSON.parse(stub) as { line?: unknown; column?: unknown; message?: unknown };
    if (typeof line !== 'number' || line < 1 || typeof column !== 'number' || typeof message !== 'string') return undefined;
    return { line, column, message: message.trim() };
  } catch {
    return undefined;
  }
}
