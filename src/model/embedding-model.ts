/**
 * The one embedding interface the project uses (modelled on the AI SDK's EmbeddingModel:
 * one method plus capability fields). Implemented by src/model/embedder.ts over node-llama-cpp.
 */
export interface EmbeddingModel {
  /** Stable id of the model file/URI; part of every cache key. */
  readonly modelId: string;
  /** Vector length; known once the model is loaded. */
  dimensions(): Promise<number>;
  /** One vector per text, same order. Vectors are L2-normalised; an all-zero vector means "no signal". */
  embed(texts: readonly string[], options?: { signal?: AbortSignal }): Promise<Float32Array[]>;
  close?(): Promise<void>;
}
