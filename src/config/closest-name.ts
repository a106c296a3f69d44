/**
 * The known name within a typo of `word` (one edit for names under six letters, two from six on;
 * case ignored; a tie goes to the name as long as the word), if any: the "did you mean" of config
 * keys, flags and commands.
 */
export function closestName(word: string, known: readonly string[]): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const name of known) {
    const distance = editDistance(word.toLowerCase(), name.toLowerCase());
    const allowed = name.length >= 6 ? 2 : 1;
    // A tie goes to the name as long as the word (`--modle`: a swap in `--model`, not `--mode` plus a letter).
    const closer = !best || distance < best.distance || (distance === best.distance && name.length === word.length && best.name.length !== word.length);
    if (distance <= allowed && closer) best = { name, distance };
  }
  return best?.name;
}

/** Optimal string alignment distance: insertions, deletions, substitutions and swaps of neighbours. */
function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) value = Math.min(value, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = value;
    }
  }
  return rows[a.length]![b.length]!;
}
