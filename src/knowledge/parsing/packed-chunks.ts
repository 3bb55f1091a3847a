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
export function packChunks(type: DocumentType, chunks: { content: string; terms: string }[]): Uint8Array {
  const encoded = chunks.flatMap((c) => [Buffer.from(c.content, 'utf8'), Buffer.from(c.terms, 'utf8')]);
  const head = 5 + 4 * encoded.length;
  const packed = new Uint8Array(head + encoded.reduce((n, b) => n + b.length, 0));
  const view = new DataView(packed.buffer);
  view.setUint8(0, types.indexOf(type));
  view.setUint32(1, chunks.length, true);
  let at = head;
  encoded.forEach((bytes, i) => {
    packed.set(bytes, at);
    at += bytes.length;
    view.setUint32(5 + 4 * i, at - head, true);
  });
  return packed;
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
