import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Whether herald runs as the bundle of dist/ (`npm run build`) or as its TypeScript sources (tsx,
 * vitest): the few things that differ (where the console's files and the parse worker's entry
 * are, whether a .ts transform needs a loader registered) ask here.
 */
export const RUNS_COMPILED = !import.meta.url.endsWith('.ts');

/**
 * herald's own folder (package.json, README.md): the nearest folder above this module holding a
 * package.json. Searched, not counted: inside the bundle this code sits in whichever chunk esbuild
 * chose, at no fixed depth.
 */
export const PACKAGE_ROOT = (() => {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!fs.existsSync(path.join(dir, 'package.json')) && path.dirname(dir) !== dir) dir = path.dirname(dir);
  return dir;
})();

/** where a file of herald lives: under dist/ when bundled, under the sources otherwise */
export const installedPath = (compiled: string, source: string): string => path.join(PACKAGE_ROOT, RUNS_COMPILED ? compiled : source);
