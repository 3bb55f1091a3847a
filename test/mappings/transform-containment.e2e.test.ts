import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { hookHeaders } from '../helpers/start-herald.js';
import { testApp, type TestApp } from '../http/app-fixture.js';

let herald: TestApp | undefined;
afterEach(async () => {
  await herald?.stop();
  herald = undefined;
});

describe('transform containment after start', () => {
  it('refuses a transform replaced by a symlink out of transformsDir on the next request, without running it', async () => {
    herald = await testApp({ hooks: { mappings: [{ id: 'routed', match: { path: 'routed' }, messageTemplate: 'x', transform: { module: 'route.mjs' }, deliver: false }] } },
      { files: { 'transforms/route.mjs': `export default () => ({ message: 'from inside' });` } },
    );
    const post = () => herald!.request(`/hooks/routed`, { method: 'POST', headers: hookHeaders(), body: '{}' });
    expect((await post()).status).toBe(202);

    const ran = path.join(herald.dir, 'outside-ran');
    const outside = path.join(herald.dir, 'outside.mjs');
    fs.writeFileSync(outside, `import fs from 'node:fs'; fs.writeFileSync(${JSON.stringify(ran)}, 'yes'); export default () => ({ message: 'from outside' });`);
    const inside = path.join(herald.dir, 'transforms', 'route.mjs');
    fs.rmSync(inside);
    fs.symlinkSync(outside, inside);

    const res = await post();
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({ ok: false, error: 'hook mapping failed' });
    expect(fs.existsSync(ran)).toBe(false);
    expect(herald.logs.find((l) => l.msg === 'hook mapping failed')).toMatchObject({ mapping: 'routed', stage: 'transform', error: 'Error' });

    // put back inside the folder: used again
    fs.rmSync(inside);
    fs.writeFileSync(inside, `export default () => ({ message: 'back inside' });`);
    expect((await post()).status).toBe(202);
  });
});
