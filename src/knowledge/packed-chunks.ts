import type { HeraldError } from '../errors.js';
import { documentTypes, type DocumentType } from './detect-type.js';

/** what a worker answers: the packed chunks, or the refusal to send back */
export type ParseAnswer = Uint8Array | { error: { code: HeraldError['code']; message: string; param?: string } };

const types = Object.keys(documentTypes) as DocumentType[];

/**
 * A document's chunks as one buffer (a type byte, the count, each chunk's end offset, then the
 * UTF-8 text), moved from the parse worker to the main thread: a structured clone of tens of
 * thousands of strings would be decoded on the main thread in one go, the very stall the worker
 * exists to avoid. Its own file so the main thread reads answers without loading the parsers.
 */
export function packChunks(type: DocumentType, chunks: string[]): Uint8Array {
  const encoded = chunks.map((c) => Buffer.from(c, 'utf8'));
  const head = 5 + 4 * chunks.length;
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

/** The main thread's view of a packed answer: the type, the count, and each chunk decoded on demand. */
export function unpackChunks(packed: Uint8Array): { type: DocumentType; count: number; chunk(i: number): string } {
  const view = new DataView(packed.buffer, packed.byteOffset, packed.byteLength);
  const count = view.getUint32(1, true);
  const head = 5 + 4 * count;
  const decoder = new TextDecoder();
  return {
    type: types[view.getUint8(0)]!,
    count,
    chunk: (i) => decoder.decode(packed.subarray(head + (i ? view.getUint32(5 + 4 * (i - 1), true) : 0), head + view.getUint32(5 + 4 * i, true))),
  };
}
