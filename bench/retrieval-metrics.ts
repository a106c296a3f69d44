/**
 * The metrics of bench/data/eval/README.md, so numbers compare with the references there:
 * Recall@k per gold group, Complete@k (every group hit), nDCG@10 with binary gain and one
 * relevant item per group (its best-ranked member).
 */
export interface QueryMetrics {
  recall1: number;
  recall5: number;
  recall10: number;
  ndcg10: number;
  complete10: number;
}

export function queryMetrics(ranked: readonly string[], groups: readonly (readonly string[])[]): QueryMetrics {
  const bestRank = groups.map((group) => {
    const ranks = group.map((id) => ranked.indexOf(id)).filter((rank) => rank >= 0);
    return ranks.length > 0 ? Math.min(...ranks) : Infinity;
  });
  const recall = (k: number) => (groups.length === 0 ? 0 : bestRank.filter((rank) => rank < k).length / groups.length);
  let dcg = 0;
  for (const rank of bestRank) if (rank < 10) dcg += 1 / Math.log2(rank + 2);
  let idcg = 0;
  for (let i = 0; i < Math.min(groups.length, 10); i++) idcg += 1 / Math.log2(i + 2);
  return {
    recall1: recall(1),
    recall5: recall(5),
    recall10: recall(10),
    ndcg10: idcg > 0 ? dcg / idcg : 0,
    complete10: groups.length > 0 && bestRank.every((rank) => rank < 10) ? 1 : 0,
  };
}

export function meanMetrics(all: readonly QueryMetrics[]): QueryMetrics {
  const sum: QueryMetrics = { recall1: 0, recall5: 0, recall10: 0, ndcg10: 0, complete10: 0 };
  for (const metrics of all) for (const key of Object.keys(sum) as (keyof QueryMetrics)[]) sum[key] += metrics[key];
  for (const key of Object.keys(sum) as (keyof QueryMetrics)[]) sum[key] = all.length > 0 ? sum[key] / all.length : 0;
  return sum;
}
