import { isSecretEnv } from './secret-env.js';

/** Credentials by their shape, wherever they appear in a message. */
const SHAPES: ReadonlyArray<[RegExp, string]> = [
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}/gi, '$1 [redacted]'],
  [/\b(gh[pousr]_[A-Za-z0-9]{20,}|github_pat_\w{20,}|sk-[\w-]{16,}|xox[abposr]-[\w-]{10,}|AKIA[0-9A-Z]{16}|glpat-[\w-]{16,}|npm_[A-Za-z0-9]{30,})/g, '[redacted]'],
  [/([?&](?:api[_-]?key|key|token|access_token|secret|password)=)[^&\s"']+/gi, '$1[redacted]'],
  [/("?(?:api[_-]?key|authorization|x-api-key|token|secret|password)"?\s*[:=]\s*"?)[^"\s,}&]{6,}/gi, '$1[redacted]'],
  [/(\b[a-z][a-z0-9+.-]*:\/\/)[^/\s@:]+(?::[^/\s@]*)?@/gi, '$1[redacted]@'],
];

/** Shorter values (`2023-06-01`, `true`) are settings: blanking them would blank ordinary words. */
export const MIN_SECRET_LENGTH = 8;

/** The values that are long enough to be secrets. */
export function secretValues(values: Iterable<string | undefined>): string[] {
  return [...values].filter((value): value is string => value !== undefined && value.length >= MIN_SECRET_LENGTH);
}

/** `text` with each of `values` blanked. */
export function blankValues(text: string, values: Iterable<string>): string {
  let out = text;
  for (const value of values) if (out.includes(value)) out = out.split(value).join('[redacted]');
  return out;
}

export interface SecretRedactor {
  (text: string): string;
  /** Values known to be secret from now on (a config's API key, an MCP server's token). */
  add(values: Iterable<string | undefined>): void;
}

/**
 * Takes credentials out of log text: the values of this process's secret-looking variables
 * (restored from the launcher's hand-over), values added later (the config's keys and tokens),
 * and anything shaped like a token, a bearer header or a password in a URL.
 */
export function redactSecrets(env: NodeJS.ProcessEnv = process.env): SecretRedactor {
  const known = new Set<string>();
  const add = (values: Iterable<string | undefined>) => {
    for (const value of secretValues(values)) known.add(value);
  };
  add(Object.entries(env).flatMap(([name, value]) => (value !== undefined && isSecretEnv(name, value) ? [value] : [])));
  const redact = (text: string): string => {
    let out = blankValues(text, known);
    for (const [pattern, replacement] of SHAPES) out = out.replace(pattern, replacement);
    return out;
  };
  return Object.assign(redact, { add });
}
