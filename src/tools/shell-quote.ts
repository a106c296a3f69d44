/** Quotes one word for a POSIX shell: `it's` → `'it'"'"'s'`. */
export function shellQuote(word: string): string {
  if (/^[\w@%+=:,./-]+$/.test(word)) return word;
  return `'${word.replace(/'/g, `'"'"'`)}'`;
}
