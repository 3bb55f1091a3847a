import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TransformLoader } from '../../src/mappings/transforms/transform-loader.js';
import { TransformPool } from '../../src/mappings/transforms/transform-pool.js';
import { transformCause } from '../../src/mappings/transforms/transform-runner.js';
import { tempDir } from '../helpers/start-herald.js';

let pool: TransformPool | undefined;
afterEach(async () => {
  await pool?.close();
  pool = undefined;
});

const ctx = { payload: { n: 1 }, headers: {}, query: {}, path: 'p', url: 'http://h/hooks/p', mapping: { id: 'm' } };

function transforms(files: Record<string, string>) {
  const dir = tempDir('herald-pool-');
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
  const loader = new TransformLoader(dir);
  return (module: string, exportName?: string) => loader.locate(loader.resolve(module), exportName);
}

describe('TransformPool', () => {
  it('calls a transform in a worker with plain data and gives back what it returned, or what it threw', async () => {
    const locate = transforms({
      'echo.mjs': 'export default (ctx) => ({ message: ctx.mapping.id + ctx.payload.n });',
      'named.mjs': 'export const other = () => null; export default () => 1;',
      'throws.mjs': `export default () => { throw new TypeError('bad input'); };`,
      'value.mjs': 'export default 42;',
    });
    pool = new TransformPool(64);
    expect(await pool.call(locate('echo.mjs'), ctx, 5000)).toEqual({ message: 'm1' });
    expect(await pool.call(locate('named.mjs', 'other'), ctx, 5000)).toBeNull();
    const thrown = await pool.call(locate('throws.mjs'), ctx, 5000).catch((e: Error) => e);
    expect(thrown).toMatchObject({ name: 'TypeError', message: 'bad input' });
    expect(transformCause(thrown)).toBe('TransformError');
    await expect(pool.check(locate('value.mjs'), 5000)).rejects.toThrow(/neither the default export nor "transform" is a function/);
  });

  it('refuses calls once closed, and closes at once when never used', async () => {
    const locate = transforms({ 'ok.mjs': 'export default () => ({});' });
    const unused = new TransformPool(64);
    await unused.close();
    await expect(unused.call(locate('ok.mjs'), ctx, 5000)).rejects.toThrow(/closed/);
  });
});
