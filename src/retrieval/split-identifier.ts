/**
 * Splits identifiers into words so that `getWeather`, `get_weather`, `get-weather` and
 * `mcp.get.weather` all read as "get weather". SQLite's unicode61 tokenizer already
 * breaks on `_`, `-` and `.`, but not on case changes, and the embedder maps an unknown
 * word like `getweather` to its longest known prefix ("get"), losing the meaning.
 */
export function splitIdentifier(text: string): string {
  return (
    text
      // `HTTPServer` → `HTTP Server`: an acronym followed by a capitalised word. Lookarounds, not
      // `(\p{Lu}+)(\p{Lu}\p{Ll})`, whose retries were quadratic in a long capital run (a base64 paste).
      .replace(/(?<=\p{Lu})(?=\p{Lu}\p{Ll})/gu, ' ')
      // `getWeather` → `get Weather`, `base64Encode` → `base64 Encode`.
      .replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, '$1 $2')
      .replace(/[_\-./:]+/g, ' ')
  );
}
