/** Longest peer-supplied text a log line or an error message repeats. */
export const LOG_TEXT_CHARS = 120;

/**
 * A peer-supplied string as a log line or an error message shows it: at most `max`
 * characters, with the length of what was cut, so a 100 KB id never fills the log.
 */
export function clipForLog(text: string, max = LOG_TEXT_CHARS): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}… (${text.length} chars)`;
}
