/** some of a document's chunks, each read (decoded) on demand */
export interface PackedChunks {
  readonly length: number;
  at(index: number): { content: string; terms: string } | undefined;
}

/**
 * A batch of chunks and their index form (segmenting and stemming are CPU work too) as one buffer
 * (the count, each string's end offset, then the UTF-8 texts: chunk i is string 2i, its index form
 * 2i+1), moved from the parse worker to the main thread: a structured clone of its strings would
 * be decoded on the main thread in one go, the very stall the worker exists to avoid. Each index
 * form is encoded as it is made and dropped: strings that outlive the young generation's
 * collections make V8 grow it. Its own file so the main thread reads batches without loading the
 * parsers.
 */
export function packChunks(chunks: string[], termsOf: (content: string) => string): Uint8Array {
  const head = 4 + 8 * chunks.length;
  // the texts' own size plus as much again for their index forms, grown by half when short
  let packed = new Uint8Array(head + 2 * chunks.reduce((n, c) => n + c.length, 0) + 1024);
  const encoder = new TextEncoder();
  const ends = new Uint32Array(2 * chunks.length);
  let at = head;
  const put = (text: string, i: number) => {
    // UTF-8 takes at most 3 bytes per UTF-16 unit
    if (packed.length - at < 3 * text.length) {
      const grown = new Uint8Array(Math.max(Math.ceil(packed.length * 1.5), at + 3 * text.length));
      grown.set(packed.subarray(0, at));
      packed = grown;
    }
    at += encoder.encodeInto(text, packed.subarray(at)).written;
    ends[i] = at - head;
  };
  chunks.forEach((content, i) => {
    put(content, 2 * i);
    put(termsOf(content), 2 * i + 1);
  });
  // what was not used is not moved (a batch is small: its copy costs little)
  if (at < packed.length) packed = packed.slice(0, at);
  const view = new DataView(packed.buffer);
  view.setUint32(0, chunks.length, true);
  ends.forEach((end, i) => view.setUint32(4 + 4 * i, end, true));
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
