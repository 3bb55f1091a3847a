// The module a token-count worker thread starts from. herald runs its TypeScript sources through
// tsx, whose loader hooks are per thread: a worker registers them itself before importing token-count-worker.ts.
import { register } from 'tsx/esm/api';

register();
await import('./token-count-worker.ts');
