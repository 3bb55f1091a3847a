import { describe, expect, it } from 'vitest';
import { IngestsInFlight } from '../../src/knowledge/ingests-in-flight.js';

/** a work that ends when the test says so */
function held<T>() {
  let end!: (value: T) => void;
  let fail!: (error: Error) => void;
  const done = new Promise<T>((resolve, reject) => ((end = resolve), (fail = reject)));
  return { done, end, fail };
}
const turns = async (n = 5) => {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
};

describe('IngestsInFlight', () => {
  it('runs the same bytes for the same owner one at a time, each waiter told; other owners and bytes do not wait', async () => {
    const ingests = new IngestsInFlight();
    const first = held<string>();
    const started: string[] = [];
    const waited: string[] = [];
    const a = ingests.alone('kb', 'sha', () => (started.push('a'), first.done));
    const b = ingests.alone('kb', 'sha', async () => (started.push('b'), 'b'), () => waited.push('b'));
    const c = ingests.alone('kb', 'sha', async () => (started.push('c'), 'c'), () => waited.push('c'));
    const other = ingests.alone('other', 'sha', async () => (started.push('other'), 'other'));
    const bytes = ingests.alone('kb', 'sha2', async () => (started.push('bytes'), 'bytes'));
    expect(await other).toBe('other');
    expect(await bytes).toBe('bytes');
    await turns();
    expect(started).toEqual(['a', 'other', 'bytes']);
    expect(waited).toEqual(['b', 'c']);
    first.end('a');
    expect(await Promise.all([a, b, c])).toEqual(['a', 'b', 'c']);
    // woken together, they still ran one after the other: the second of them waited for the first
    expect(started).toEqual(['a', 'other', 'bytes', 'b', 'c']);
    expect(waited).toEqual(['b', 'c', 'c']);
  });

  it('lets a waiter do the work itself when the one it waited for failed', async () => {
    const ingests = new IngestsInFlight();
    const first = held<string>();
    const a = ingests.alone('kb', 'sha', () => first.done);
    const b = ingests.alone('kb', 'sha', async () => 'stored by the second');
    await turns();
    first.fail(new Error('the parse worker stopped'));
    await expect(a).rejects.toThrow('the parse worker stopped');
    expect(await b).toBe('stored by the second');
    // nothing is left waited for
    expect(await ingests.alone('kb', 'sha', async () => 'again', () => expect.unreachable())).toBe('again');
  });
});
