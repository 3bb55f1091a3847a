/**
 * The clock of one transform call, shared between the gateway's thread and the worker running it
 * (shared memory: no message per call). The worker stamps when it starts importing the module and
 * when it calls the function; both stay 0 while the task waits for a worker, which is not charged.
 */
export type TransformClock = BigInt64Array;

const LOADING = 0;
const CALLING = 1;

/** Importing a module (a worker's first call of it, and again after an edit) has its own limit: a TypeScript file is compiled then. */
export const TRANSFORM_LOAD_LIMIT_MS = 30_000;

/** how often a call still waiting for a worker is looked at, to start its clock once a worker takes it */
const QUEUED_CHECK_MS = 50;

export function newTransformClock(): TransformClock {
  return new BigInt64Array(new SharedArrayBuffer(2 * BigInt64Array.BYTES_PER_ELEMENT));
}

/** in the worker: the task's module is being imported, or its function called, from now on */
export function stampClock(clock: TransformClock, phase: 'loading' | 'calling'): void {
  Atomics.store(clock, phase === 'loading' ? LOADING : CALLING, BigInt(Date.now()));
}

/**
 * Calls `expired` with the phase that overran once the function has run `timeoutMs`, or its
 * module has been importing for TRANSFORM_LOAD_LIMIT_MS.
 */
export function armDeadline(clock: TransformClock, timeoutMs: number, expired: (phase: 'loading' | 'calling') => void): { cancel(): void } {
  let timer: NodeJS.Timeout;
  const check = () => {
    const calling = Number(Atomics.load(clock, CALLING));
    const loading = Number(Atomics.load(clock, LOADING));
    const deadline = calling ? calling + timeoutMs : loading ? loading + TRANSFORM_LOAD_LIMIT_MS : undefined;
    const left = deadline === undefined ? QUEUED_CHECK_MS : deadline - Date.now();
    if (left <= 0) expired(calling ? 'calling' : 'loading');
    else timer = setTimeout(check, left);
  };
  timer = setTimeout(check, Math.min(timeoutMs, QUEUED_CHECK_MS));
  return { cancel: () => clearTimeout(timer) };
}
