import { LazyAbort } from '../time/lazy-abort.js';

/**
 * What stops a run (its time limit, a shutdown, a lost lease), with the reason given. Its
 * AbortSignal is made only when something asks for it (a model over the network): a run answered
 * by the embedded model never needs one.
 */
export class RunAbort extends LazyAbort {}
