/**
 * The parts of a request that may each need their own tool: lines of a multi-turn
 * conversation, sentences of a longer request ("Book a flight to Rome. Then add it to my
 * calendar."). Searching each part as well as the whole keeps the second need from being
 * drowned by the first one's words. Parts without content (a lone "Yes, thanks.") are
 * kept out by the caller's cleaning; very short fragments are merged away here.
 */
export function splitRequest(request: string, options: { maxParts: number; minWords?: number }): string[] {
  const minWords = options.minWords ?? 3;
  const pieces = request
    .split(/\n+|(?<=[.!?])\s+(?=\p{Lu})/u)
    .map((piece) => piece.trim())
    .filter((piece) => piece.split(/\s+/).length >= minWords);
  if (pieces.length < 2) return [];
  return pieces.slice(0, options.maxParts);
}
