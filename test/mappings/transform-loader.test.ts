import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TransformLoader } from '../../src/mappings/transforms/transform-loader.js';
import { pickExport } from '../../src/mappings/transforms/transform-modules.js';
import { TransformConfigError } from '../../src/mappings/transforms/transform-runner.js';
import { tempDir } from '../helpers/start-herald.js';

function setup(files: Record<string, string>) {
  const root = tempDir('herald-transforms-');
  const dir = path.join(root, 'transforms');
  fs.mkdirSync(dir);
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
    fs.writeFileSync(path.join(root, name), text);
  }
  return { root, dir, loader: new TransformLoader(dir) };
}

/** rewrites a file and moves its mtime forward, as an editor saving it later would */
function edit(file: string, text: string, step: number) {
  fs.writeFileSync(file, text);
  const later = new Date(Date.now() + step * 1000);
  fs.utimesSync(file, later, later);
}

describe('transform containment', () => {
  it('refuses ../, absolute paths and symlinks that leave the folder', () => {
    const { root, dir, loader } = setup({ 'outside.mjs': 'export default () => ({})', 'transforms/inside.mjs': 'export default () => ({})' });
    fs.symlinkSync(path.join(root, 'outside.mjs'), path.join(dir, 'link.mjs'));
    expect(() => loader.resolve('../outside.mjs')).toThrow(/outside hooks.transformsDir/);
    expect(() => loader.resolve(path.join(root, 'outside.mjs'))).toThrow(/not an absolute path/);
    expect(() => loader.resolve('link.mjs')).toThrow(/symlinks may not leave the folder/);
    fs.symlinkSync(root, path.join(dir, 'linked-dir'));
    expect(() => loader.resolve('linked-dir/outside.mjs')).toThrow(/symlinks may not leave the folder/);
    expect(() => loader.resolve('missing.mjs')).toThrow(/not found/);
    expect(() => loader.resolve('notes.txt')).toThrow(TransformConfigError);
    expect(loader.resolve('inside.mjs')).toBe(fs.realpathSync(path.join(dir, 'inside.mjs')));
    fs.writeFileSync(path.join(dir, '..dotted.mjs'), 'export default () => ({})');
    expect(loader.resolve('..dotted.mjs')).toBe(fs.realpathSync(path.join(dir, '..dotted.mjs')));
  });

  it('accepts a symlink that stays inside the folder', () => {
    const { dir, loader } = setup({ 'transforms/lib/real.mjs': 'export default () => ({})' });
    fs.symlinkSync(path.join(dir, 'lib/real.mjs'), path.join(dir, 'alias.mjs'));
    expect(loader.resolve('alias.mjs')).toBe(fs.realpathSync(path.join(dir, 'lib/real.mjs')));
  });
});

describe('export resolution', () => {
  it('uses the named export, else default, else transform', async () => {
    const { dir, loader } = setup({
      'transforms/both.mjs': 'export default () => "default"; export const transform = () => "transform"; export const other = () => "other";',
      'transforms/named.mjs': 'export const transform = () => "transform";',
      'transforms/typed.ts': 'export default (ctx: { path: string }): string => `ts:${ctx.path}`;',
      'transforms/common.cjs': 'module.exports = () => "cjs";',
      'transforms/common-named.cjs': 'exports.transform = () => "cjs-named";',
    });
    const call = async (module: string, exportName?: string) => (await loader.load(loader.resolve(module), exportName))({ path: 'p' } as never);
    expect(await call('both.mjs')).toBe('default');
    expect(await call('both.mjs', 'other')).toBe('other');
    expect(await call('named.mjs')).toBe('transform');
    expect(await call('typed.ts')).toBe('ts:p');
    expect(await call('common.cjs')).toBe('cjs');
    expect(await call('common-named.cjs')).toBe('cjs-named');
    // an ES module compiled to CommonJS, as a .ts file outside a "type": "module" package arrives
    const compiled = { default: { __esModule: true, default: () => 'compiled' } };
    expect(pickExport(compiled, undefined, 'compiled.ts')({} as never)).toBe('compiled');
    await expect(loader.load(loader.resolve('both.mjs'), 'missing')).rejects.toThrow(/export "missing" is not a function/);
    fs.writeFileSync(path.join(dir, 'value.mjs'), 'export default 42;');
    await expect(loader.load(loader.resolve('value.mjs'))).rejects.toThrow(/neither the default export nor "transform" is a function/);
  });
});

describe('caching and reload', () => {
  it('keeps a loaded function until the file changes, then reloads it (ESM, TS and CommonJS)', async () => {
    const { dir, loader } = setup({
      'transforms/esm.mjs': 'export default () => "v1";',
      'transforms/typed.ts': 'export default (): string => "v1";',
      'transforms/common.cjs': 'module.exports = () => "v1";',
    });
    for (const name of ['esm.mjs', 'typed.ts', 'common.cjs']) {
      const file = loader.resolve(name);
      const first = await loader.load(file);
      expect(first({} as never)).toBe('v1');
      expect(await loader.load(file)).toBe(first);
      const text = fs.readFileSync(file, 'utf8').replace('v1', 'v2');
      edit(file, text, 5);
      const second = await loader.load(file);
      expect(second).not.toBe(first);
      expect(second({} as never)).toBe('v2');
    }
  });

  it('reloads a file replaced under its old modification time (cp -p, an unpacked archive)', async () => {
    const { dir, loader } = setup({ 'transforms/kept.mjs': 'export default () => "old";' });
    const file = loader.resolve('kept.mjs');
    expect((await loader.load(file))({} as never)).toBe('old');
    const { atime, mtime } = fs.statSync(file);
    fs.writeFileSync(path.join(dir, 'kept.mjs'), 'export default () => "replaced";');
    fs.utimesSync(file, atime, mtime);
    expect((await loader.load(file))({} as never)).toBe('replaced');
  });
});
