/**
 * Tools of a relevant server help each other: when several tools of one server match a
 * request, the request is probably about that server's domain, and its tools deserve a
 * lift over a lone lookalike elsewhere (`write_file` on the server whose other tools also
 * match). Each document gains `boost ×` the mean fused score of the other top matches in
 * its namespace, so a namespace with a single document is never lifted by itself.
 */
export function applyGroupBoost(
  scores: Map<number, number>,
  groupOf: (rowid: number) => string,
  options: { boost: number; peers?: number },
): Map<number, number> {
  if (options.boost <= 0 || scores.size === 0) return scores;
  const peers = options.peers ?? 3;
  const byGroup = new Map<string, number[]>();
  for (const [rowid, score] of scores) {
    const group = groupOf(rowid);
    const list = byGroup.get(group);
    if (list) list.push(score);
    else byGroup.set(group, [score]);
  }
  for (const list of byGroup.values()) list.sort((a, b) => b - a);
  const boosted = new Map<number, number>();
  for (const [rowid, score] of scores) {
    const list = byGroup.get(groupOf(rowid)) ?? [];
    // The strongest peers other than this document itself.
    let sum = 0;
    let count = 0;
    let skippedSelf = false;
    for (const peer of list) {
      if (!skippedSelf && peer === score) {
        skippedSelf = true;
        continue;
      }
      sum += peer;
      if (++count >= peers) break;
    }
    boosted.set(rowid, score + (count > 0 ? (options.boost * sum) / peers : 0));
  }
  return boosted;
}
