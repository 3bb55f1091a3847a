/** One chunk's embedding, as an adapter keeps it in memory for brute-force search. */
export interface StoredVector {
  /** the adapter's key of the chunk */
  key: number;
  vector: Float32Array;
  /** its Euclidean norm, computed once */
  norm: number;
}

export const vectorOf = (bytes: Uint8Array): Float32Array =>
  // a copy: the bytes a driver hands out need not be 4-byte aligned
  new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));

export const bytesOf = (vector: Float32Array): Buffer => Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);

export const normOf = (v: Float32Array) => {
  let sum = 0;
  for (let i = 0; i < v.length; i++) sum += v[i]! * v[i]!;
  return Math.sqrt(sum);
};

/**
 * The `limit` stored vectors nearest the query by cosine similarity, nearest first. Brute force:
 * a knowledge base of a few thousand chunks compares in about a millisecond; vectors of another
 * dimension (another model) are skipped.
 */
export function nearestVectors(stored: StoredVector[], query: Float32Array, limit: number): { key: number; similarity: number }[] {
  const qn = normOf(query);
  if (qn === 0) return [];
  const best: { key: number; similarity: number }[] = [];
  for (const s of stored) {
    if (s.vector.length !== query.length || s.norm === 0) continue;
    let dot = 0;
    for (let i = 0; i < query.length; i++) dot += s.vector[i]! * query[i]!;
    const similarity = dot / (s.norm * qn);
    if (best.length < limit || similarity > best.at(-1)!.similarity) {
      best.push({ key: s.key, similarity });
      best.sort((a, b) => b.similarity - a.similarity);
      if (best.length > limit) best.pop();
    }
  }
  return best;
}
