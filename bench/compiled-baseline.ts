import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * The baseline server as plain JavaScript, bundled the way `npm run build` bundles herald (esbuild,
 * packages left as imports): started with `node` alone, its cold start pays no TypeScript loader,
 * as herald's does not. Written under .tmp/ (git-ignored) inside the checkout, so its package
 * imports resolve from node_modules.
 */
/** esbuild's options as `npm run build` bundles herald: one ES module for node 20, packages left as imports */
export const AS_THE_BUILD = { bundle: true, packages: 'external', format: 'esm', platform: 'node', target: 'node20', logLevel: 'warning' } as const;

export async function compiledBaseline(): Promise<string> {
  const outfile = path.join(ROOT, '.tmp/bench/baseline-server.mjs');
  await build({
    entryPoints: [path.join(ROOT, 'bench/baseline-server.ts')],
    outfile,
    ...AS_THE_BUILD,
  });
  return outfile;
}
