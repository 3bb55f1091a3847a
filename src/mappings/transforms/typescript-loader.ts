import { RUNS_COMPILED } from '../../utils/install-layout.js';

let registered: Promise<void> | undefined;

/**
 * A .ts transform needs a TypeScript loader. From the sources one is there already (tsx, vitest);
 * compiled, tsx is registered when the first .ts transform loads, not at start: its loader thread
 * costs ~36 MB, and every import after it passes through that thread.
 */
export function typescriptLoader(): Promise<void> {
  if (!RUNS_COMPILED) return Promise.resolve();
  return (registered ??= (async () => {
    const [esm, commonJs] = await Promise.all([import('tsx/esm/api'), import('tsx/cjs/api')]);
    esm.register();
    // a .ts file outside a "type": "module" package is CommonJS: Node loads it through require
    commonJs.register();
  })());
}
