import { afterEach, describe, expect, it } from 'vitest';
import { knowledgeLimitsSchema } from '../../src/config/schema.js';
import { DEFAULT_CHUNK } from '../../src/knowledge/parsing/chunk-text.js';
import { ParsePool, type ParsedDocumentStream } from '../../src/knowledge/parsing/parse-pool.js';

let pool: ParsePool | undefined;
afterEach(async () => {
  await pool?.close();
  pool = undefined;
});

/** a good text file of about `bytes`: sentences, as a handbook is */
const textFile = (bytes: number, seed: number) => Buffer.from(`Section ${seed}. Refunds are issued within fourteen days of purchase when the receipt is sent to billing.\n`.repeat(Math.ceil(bytes / 100)));

/** every chunk a parse makes, read as a store reads them: batch by batch */
const readAll = (bytes: Uint8Array, filename: string, parse: (input: { bytes: Uint8Array; filename: string; chunking: typeof DEFAULT_CHUNK }, consume: (parsed: ParsedDocumentStream) => Promise<string[]>) => Promise<string[]>) =>
  parse({ bytes, filename, chunking: DEFAULT_CHUNK }, async (parsed) => {
    const contents: string[] = [];
    for await (const batch of parsed.batches) for (let i = 0; i < batch.length; i++) contents.push(batch.at(i)!.content);
    return contents;
  });

describe('ParsePool', () => {
  it('times each parse from when a worker takes it: sixty-four good 64 KB files behind one worker all come out', async () => {
    pool = new ParsePool(knowledgeLimitsSchema.parse({ workers: 1, parseTimeoutMs: 2000 }));
    const results = await Promise.allSettled(Array.from({ length: 64 }, (_, i) => readAll(textFile(1 << 16, i), `f${i}.txt`, (input, consume) => pool!.parse(input, consume))));
    expect(results.filter((r) => r.status === 'rejected').map((r) => (r as PromiseRejectedResult).reason.message)).toEqual([]);
  });

  it('hands the chunks over in batches, in order, and frees the worker of a reader that leaves them unread', async () => {
    pool = new ParsePool(knowledgeLimitsSchema.parse({ workers: 1 }));
    const file = textFile(1 << 20, 1);
    const sizes: number[] = [];
    const contents = await pool.parse({ bytes: file, filename: 'big.txt', chunking: DEFAULT_CHUNK }, async (parsed) => {
      const read: string[] = [];
      for await (const batch of parsed.batches) {
        sizes.push(batch.length);
        for (let i = 0; i < batch.length; i++) read.push(batch.at(i)!.content);
      }
      expect(read).toHaveLength(parsed.count);
      return read;
    });
    expect(sizes.length).toBeGreaterThan(1);
    expect(contents.join(' ')).toContain('Section 1. Refunds are issued');
    // a duplicate: the reader answers without its batches; the next document still gets the worker
    const type = await pool.parse({ bytes: textFile(1 << 20, 2), filename: 'again.txt', chunking: DEFAULT_CHUNK }, async (parsed) => parsed.type);
    expect(type).toBe('txt');
    expect((await readAll(textFile(1000, 3), 'small.txt', (input, consume) => pool!.parse(input, consume)))[0]).toContain('Section 3.');
  });

  it('refuses a document past platform.knowledge.maxQueued as the server being busy (503), not as a fault of the file', async () => {
    pool = new ParsePool(knowledgeLimitsSchema.parse({ workers: 1, maxQueued: 2 }));
    const parses = Array.from({ length: 4 }, (_, i) => readAll(textFile(1000, i), `f${i}.txt`, (input, consume) => pool!.parse(input, consume)));
    const results = await Promise.allSettled(parses);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled', 'rejected']);
    expect((results[3] as PromiseRejectedResult).reason).toMatchObject({
      code: 'HERALD_UNAVAILABLE',
      status: 503,
      message: '2 documents are already waiting for a parse worker (platform.knowledge.maxQueued). Retry later.',
    });
  });
});
