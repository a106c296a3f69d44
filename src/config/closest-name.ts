/**
 * The known name within a typo of `word` (one edit for names under six letters, two from six on;
 * case ignored; a tie goes to the name as long as the word), if any: the "did you mean" of config
 * keys, flags and commands.
 */
export function closestName(word: string, known: readonly string[]): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const name of known) {
    const allowed = name.length >= 6 ? 2 : 1;
    // The distance is at least the difference in length: most names need no table at all.
    if (Math.abs(name.length - word.length) > allowed) continue;
    const distance = editDistance(word.toLowerCase(), name.toLowerCase());
    // A tie goes to the name as long as the word (`--modle`: a swap in `--model`, not `--mode` plus a letter).
    const closer = !best || distance < best.distance || (distance === best.distance && name.length === word.length && best.name.length !== word.length);
    if (distance <= allowed && closer) best = { name, distance };
  }
  return best?.name;
}

/**
 * Optimal string alignment distance: insertions, deletions, substitutions and swaps of neighbours.
 * Three rolling rows: it runs over the environment at every start (cli/mistyped-variables.ts).
 */
function editDistance(a: string, b: string): number {
  let before = new Uint32Array(b.length + 1);
  let previous = Uint32Array.from({ length: b.length + 1 }, (_, j) => j);
  let current = new Uint32Array(b.length + 1);
  for (let i = 1; i <= a.length; i++) {
    current[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) value = Math.min(value, before[j - 2]! + 1);
      current[j] = value;
    }
    [before, previous, current] = [previous, current, before];
  }
  return previous[b.length]!;
}
