import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/start-herald.js';

/**
 * bin/herald.mjs runs dist/ only when its build is newer than every source, else the sources
 * through tsx. Checked on a stand-in checkout (the real bin/, a dist/ and src/ whose entry points
 * say which one ran), so no compile is needed: the suite spawns herald while sources are edited,
 * and an older build must never answer for them.
 */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

function standIn(): { root: string; run: () => string } {
  const root = tempDir('herald-bin-');
  fs.cpSync(path.join(ROOT, 'bin'), path.join(root, 'bin'), { recursive: true });
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(root, 'node_modules'));
  fs.writeFileSync(path.join(root, 'package.json'), '{ "type": "module" }\n');
  const entry = (from: string) => `export async function main() { process.stdout.write('${from}'); return 0; }\n`;
  for (const [file, text] of [
    ['src/cli/main.ts', entry('source')],
    ['plugins/listings.ts', 'export const builtinListings: unknown[] = [];\n'],
    ['dist/src/cli/main.js', entry('dist')],
    ['dist/plugins/listings.js', 'export const builtinListings = [];\n'],
  ]) {
    fs.mkdirSync(path.dirname(path.join(root, file!)), { recursive: true });
    fs.writeFileSync(path.join(root, file!), text!);
  }
  const run = () => spawnSync(process.execPath, [path.join(root, 'bin/herald.mjs'), 'serve'], { encoding: 'utf8' }).stdout;
  return { root, run };
}

const stamp = (root: string, startedAt: number) => fs.writeFileSync(path.join(root, 'dist/build.json'), JSON.stringify({ startedAt }));

describe('bin/herald.mjs: the build or the sources', () => {
  it('runs dist/ when its build started after the last change to src/ and plugins/', () => {
    const { root, run } = standIn();
    stamp(root, Date.now() + 1000);
    expect(run()).toBe('dist');
  });

  it('runs the sources when a file of src/ or plugins/ changed after the build started', () => {
    const { root, run } = standIn();
    const built = Date.now() - 60_000;
    stamp(root, built);
    for (const file of ['src/cli/main.ts', 'plugins/listings.ts', 'dist/src/cli/main.js']) fs.utimesSync(path.join(root, file), new Date(built - 1000), new Date(built - 1000));
    expect(run()).toBe('dist');
    const edited = new Date(built + 1000);
    fs.utimesSync(path.join(root, 'plugins/listings.ts'), edited, edited);
    expect(run()).toBe('source');
  });

  it('runs the sources when there is no build, or an unfinished one (no stamp)', () => {
    const { root, run } = standIn();
    expect(run()).toBe('source');
    fs.rmSync(path.join(root, 'dist'), { recursive: true });
    expect(run()).toBe('source');
  });
});
