// The module a parse worker thread starts from. herald runs its TypeScript sources through tsx,
// whose loader hooks are per thread: a worker registers them itself before importing parse-worker.ts.
import { register } from 'tsx/esm/api';

register();
const { default: parseInWorker } = await import('./parse-worker.ts');
export default parseInWorker;
