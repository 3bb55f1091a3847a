import type { HeraldError } from '../../errors.js';
import { documentTypes, type DocumentType } from './detect-type.js';

/** what a worker answers: the packed chunks, or the refusal to send back */
export type ParseAnswer = Uint8Array | { error: { code: HeraldError['code']; message: string; param?: string } };

const types = Object.keys(documentTypes) as DocumentType[];

/**
 * A document's chunks and their index form (segmenting and stemming are CPU work too) as one
 * buffer (a type byte, the count, each string's end offset, then the UTF-8 texts: chunk i is
 * string 2i, its index form 2i+1), moved from the parse worker to the main thread: a structured
 * clone of tens of thousands of strings would be decoded on the main thread in one go, the very
 * stall the worker exists to avoid. Its own file so the main thread reads answers without loading
 * the parsers.
 */
export function packChunks(type: DocumentType, chunks: string[], termsOf: (content: string) => string): Uint8Array {
  // each string encoded straight into one buffer as it is made (an index form is dropped once
  // encoded): no Buffer per string, no list of index forms, no second copy of the texts. The
  // buffer starts at the texts' own size plus as much again for their index forms, and grows
  // by half when that is short.
  const head = 5 + 8 * chunks.length;
  let packed = new Uint8Array(head + 2 * chunks.reduce((n, c) => n + c.length, 0) + 1024);
  const encoder = new TextEncoder();
  let at = head;
  const offsets = new Uint32Array(2 * chunks.length);
  const put = (text: string, i: number) => {
    // UTF-8 takes at most 3 bytes per UTF-16 unit
    if (packed.length - at < 3 * text.length) {
      const grown = new Uint8Array(Math.max(Math.ceil(packed.length * 1.5), at + 3 * text.length));
      grown.set(packed.subarray(0, at));
      packed = grown;
    }
    at += encoder.encodeInto(text, packed.subarray(at)).written;
    offsets[i] = at - head;
  };
  chunks.forEach((content, i) => {
    put(content, 2 * i);
    put(termsOf(content), 2 * i + 1);
  });
  // what was not used is not moved to the main thread (a copy only when it is more than an eighth)
  if (packed.length - at > packed.length / 8) packed = packed.slice(0, at);
  const view = new DataView(packed.buffer, packed.byteOffset);
  view.setUint8(0, types.indexOf(type));
  view.setUint32(1, chunks.length, true);
  offsets.forEach((offset, i) => view.setUint32(5 + 4 * i, offset, true));
  return packed.byteLength === at ? packed : packed.subarray(0, at);
}

/** The main thread's view of a packed answer: the type, the count, and each chunk (with its index form) decoded on demand. */
export function unpackChunks(packed: Uint8Array): { type: DocumentType; count: number; chunk(i: number): { content: string; terms: string } } {
  const view = new DataView(packed.buffer, packed.byteOffset, packed.byteLength);
  const count = view.getUint32(1, true);
  const head = 5 + 8 * count;
  const decoder = new TextDecoder();
  const string = (i: number) => decoder.decode(packed.subarray(head + (i ? view.getUint32(5 + 4 * (i - 1), true) : 0), head + view.getUint32(5 + 4 * i, true)));
  return { type: types[view.getUint8(0)]!, count, chunk: (i) => ({ content: string(2 * i), terms: string(2 * i + 1) }) };
}
