/**
 * Text as an embedding model should see it. Word-piece tokenizers split snake_case, kebab-case
 * and dots into words but not camelCase (`getWeather` would embed as "get"), so identifiers are
 * split at case changes and letter/digit boundaries first; whitespace runs collapse to one space.
 */
export function prepareEmbeddingText(text: string): string {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .replace(/([A-Za-z])([0-9])|([0-9])([A-Za-z])/g, (_m, a, b, c, d) => (a ? `${a} ${b}` : `${c} ${d}`))
    .replace(/\s+/g, ' ')
    .trim();
}
