import type { LlamaContextSequence, Token } from 'node-llama-cpp';

/**
 * Brings a sequence's evaluated state up to a prompt, all but its last token: node-llama-cpp's
 * `adaptStateToTokens` keeps the longest common prefix with what the sequence already holds and
 * erases the rest, then the new tokens are evaluated one batch at a time. The generation that
 * follows (LlamaChat or LlamaCompletion) finds the prefix in place and evaluates only the last
 * token. Done here rather than inside the generation because node-llama-cpp checks the abort
 * signal only between its phases: a long prompt on a slow CPU would otherwise run to its end
 * after a cancel. Returns how many tokens were reused.
 */
export async function prefillSequence(
  sequence: LlamaContextSequence,
  tokens: readonly Token[],
  signal?: AbortSignal,
  onStart?: (reused: number) => void,
): Promise<number> {
  signal?.throwIfAborted();
  const prefix = tokens.slice(0, -1);
  await sequence.adaptStateToTokens(prefix, false);
  const reused = sequence.nextTokenIndex;
  onStart?.(reused);
  const batch = Math.max(1, sequence.context.batchSize);
  for (let start = reused; start < prefix.length; start += batch) {
    signal?.throwIfAborted();
    await sequence.evaluateWithoutGeneratingNewTokens(prefix.slice(start, start + batch));
  }
  signal?.throwIfAborted();
  return reused;
}
