// The module a transform worker thread starts from. herald runs its TypeScript sources through tsx,
// whose loader hooks are per thread: a worker registers them itself before importing transform-worker.ts
// (CommonJS too: a .ts transform outside a "type": "module" package is loaded through require).
import { register } from 'tsx/esm/api';
import { register as registerCommonJs } from 'tsx/cjs/api';

register();
registerCommonJs();
const { default: runTransformTask } = await import('./transform-worker.ts');
export default runTransformTask;
