import { fileURLToPath } from 'node:url';

/**
 * Whether herald runs as the compiled JavaScript of dist/ (`npm run build`) or as its TypeScript
 * sources (tsx, vitest): the few things that differ (where package.json is, which worker entry a
 * thread starts from, whether a .ts transform needs a loader registered) ask here.
 */
export const RUNS_COMPILED = !import.meta.url.endsWith('.ts');

/** herald's own folder (package.json, README.md): above src/, or above dist/src/ when compiled */
export const PACKAGE_ROOT = fileURLToPath(new URL(RUNS_COMPILED ? '../../' : '../', import.meta.url));
