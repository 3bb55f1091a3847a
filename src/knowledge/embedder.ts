/**
 * Turns texts into vectors, in order: the chunks of a document at ingest, a question at search.
 * The port knowledge declares for hybrid retrieval; models' embeddings client implements it.
 */
export interface Embedder {
  /** the ref it was configured with (`<provider>/<model>`), kept with each document's vectors */
  readonly ref: string;
  embed(texts: string[], signal?: AbortSignal): Promise<Float32Array[]>;
}
