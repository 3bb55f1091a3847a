/** some of a document's chunks, each read (decoded) on demand */
export interface PackedChunks {
  readonly length: number;
  at(index: number): { content: string; terms: string } | undefined;
}

/**
 * A batch of chunks and their index form (segmenting and stemming are CPU work too) as one buffer
 * (the count, each string's end offset, then the UTF-8 texts: chunk i is string 2i, its index form
 * 2i+1), moved from the parse worker to the main thread: a structured clone of its strings would
 * be decoded on the main thread in one go, the very stall the worker exists to avoid. Sized
 * exactly, in one allocation: batches of one size reuse the memory the ones before gave back.
 * Its own file so the main thread reads batches without loading the parsers.
 */
export function packChunks(chunks: string[], termsOf: (content: string) => string): Uint8Array {
  const strings = chunks.flatMap((content) => [content, termsOf(content)]);
  const head = 4 + 4 * strings.length;
  const ends = new Uint32Array(strings.length);
  let size = head;
  strings.forEach((text, i) => (ends[i] = (size += Buffer.byteLength(text)) - head));
  const packed = new Uint8Array(size);
  const view = new DataView(packed.buffer);
  view.setUint32(0, chunks.length, true);
  const encoder = new TextEncoder();
  strings.forEach((text, i) => {
    encoder.encodeInto(text, packed.subarray(head + (i ? ends[i - 1]! : 0)));
    view.setUint32(4 + 4 * i, ends[i]!, true);
  });
  return packed;
}

/** The main thread's view of a packed batch: each chunk (with its index form) decoded when it is read. */
export function unpackChunks(packed: Uint8Array): PackedChunks {
  const view = new DataView(packed.buffer, packed.byteOffset, packed.byteLength);
  const count = view.getUint32(0, true);
  const head = 4 + 8 * count;
  const decoder = new TextDecoder();
  const string = (i: number) => decoder.decode(packed.subarray(head + (i ? view.getUint32(4 + 4 * (i - 1), true) : 0), head + view.getUint32(4 + 4 * i, true)));
  return { length: count, at: (i) => (i >= 0 && i < count ? { content: string(2 * i), terms: string(2 * i + 1) } : undefined) };
}
