import { HeraldError } from '../errors.js';

/**
 * A failure of the model call itself (the provider's HTTP error, a network error, an abort),
 * told apart from the turn's other steps (reading the history, recording the answer) so each
 * caller maps only this one to "the model failed". Its message is the provider's.
 */
export class ModelCallError extends Error {
  constructor(cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause), { cause });
    this.name = 'ModelCallError';
  }
}

/** A model failure as a platform caller may see it: the upstream status, never its body. */
export function modelFailure(error: unknown, timedOut: boolean, timeoutSeconds: number): unknown {
  if (!(error instanceof ModelCallError)) return error;
  const cause = error.cause;
  if (cause instanceof HeraldError) return cause;
  if (timedOut) return new HeraldError('HERALD_MODEL_FAILED', `The model did not answer within ${timeoutSeconds}s.`, { cause });
  const status = (cause as { status?: unknown }).status;
  const suffix = typeof status === 'number' ? ` (HTTP ${status})` : '';
  return new HeraldError('HERALD_MODEL_FAILED', `The agent's model provider failed${suffix}.`, { cause });
}
