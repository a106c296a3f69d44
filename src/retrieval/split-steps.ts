/**
 * The steps of a multi-step request at clause level: sentences and lines, but also clauses
 * joined by "then", "and", "after that", semicolons and list commas ("find the news, make a
 * word cloud and put it in a PDF"). Each step is searched on its own so that one step's many
 * words cannot push another step's tool out of the list. A fragment with fewer than
 * `minWords` words ("price") carries no step of its own and is dropped; the whole request is
 * always searched too, so nothing is lost by dropping it.
 */
const STEP_BOUNDARY =
  /\n+|[.!?;:]+(?:\s+|$)|,\s*|\s+(?:and\s+then|and\s+also|and|then|after\s+that|afterwards|so\s+that|in\s+order\s+to)\s+|[，。；、]/iu;

/**
 * A clause that only states a value ("my username is admin", "the date is June 1st") gives
 * another step its arguments; it asks for nothing itself. Questions ("what is …", "which …
 * is …") are not statements.
 */
const STATEMENT =
  /^(?:(?:and|but|also|so)\s+)?(?!(?:what|which|who|whom|whose|how|where|when|why|is|are|can|could|would|will|do|does|did)\b)(?:[\p{L}'-]+\s+){0,3}?(?:is|are|was|were)\s/iu;

export function isStatement(clause: string): boolean {
  return STATEMENT.test(clause.trim());
}

export function splitSteps(request: string, options: { maxSteps: number; minWords?: number; skipStatements?: boolean }): string[] {
  const minWords = options.minWords ?? 2;
  const steps = request
    .split(STEP_BOUNDARY)
    .map((piece) => piece.trim())
    .filter((piece) => piece !== '' && (/\p{Script=Han}/u.test(piece) || piece.split(/\s+/).length >= minWords))
    .filter((piece) => !options.skipStatements || !isStatement(piece));
  if (steps.length < 2) return [];
  return steps.slice(0, options.maxSteps);
}
