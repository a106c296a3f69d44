/**
 * The FTS5 columns, in table order, and how much a match in each counts (bm25() weights).
 * A name or title says what a tool is in two or three words, so a match there is worth
 * more than one somewhere in a description that may run to hundreds of words; argument
 * names and the server's own description are evidence too, but weaker and shared by many
 * tools. Values chosen on the ablation in bench/RETRIEVAL.md.
 */
export const FTS_COLUMNS = ['name', 'title', 'description', 'args', 'grp', 'body'] as const;

export type FtsColumn = (typeof FTS_COLUMNS)[number];

export type FieldWeights = Readonly<Record<FtsColumn, number>>;

export const DEFAULT_FIELD_WEIGHTS: FieldWeights = {
  name: 5,
  title: 2,
  description: 1,
  args: 0.5,
  grp: 0.3,
  body: 1,
};

/** The weights as the argument list of `bm25(docs_fts, …)`. */
export function bm25WeightArgs(weights: FieldWeights): string {
  return FTS_COLUMNS.map((column) => Number(weights[column]).toFixed(4)).join(', ');
}
