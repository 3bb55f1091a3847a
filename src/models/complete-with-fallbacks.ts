import { failureCause } from './providers/provider-failure.js';
import { deadline } from '../time/deadline.js';
import type { ModelRegistry } from './model-registry.js';
import { needsClientTools, type ModelOptions, type ModelProvider, type ModelRequest, type ModelResponse } from './provider.js';
import { copyWith } from '../utils/copy-with.js';

export interface FallbackResult extends ModelResponse {
  /** the canonical ref of the model that answered */
  ref: string;
  /** what the models before it failed with, in order */
  failures: ModelFailure[];
}

/** one model tried and why it gave no answer (never the upstream's body beyond its client's message) */
export interface ModelFailure {
  ref: string;
  /** the provider it was sent to (`models.providers.<id>`), when the ref resolved */
  provider?: string;
  error: string;
}

/** the failures as a run records them: each model, its provider and its cause */
export function describeFailures(failures: ModelFailure[]): string {
  // an error that names its model already (a missing key) is not prefixed a second time
  return failures.map((f) => (f.error.includes(`"${f.ref}"`) ? f.error : `model ${f.ref}${f.provider ? ` (provider ${f.provider})` : ''}: ${f.error}`)).join('; ');
}

/** Every model of the chain failed; the message names each with its reason. */
export class AllModelsFailedError extends Error {
  /** `cause`: the last model's own error, so a log line can say why (ECONNREFUSED host:port, the upstream status) */
  constructor(readonly failures: ModelFailure[], cause?: unknown) {
    super(failures.length === 1 ? failures[0]!.error : `every model failed: ${failures.map((f) => `${f.ref}: ${f.error}`).join('; ')}`, { cause });
    this.name = 'AllModelsFailedError';
  }
}

/** a model that would ignore the client's tools or format is not an answer to this request: the chain's next one is asked */
function refuseUnfit(request: ModelOptions, provider: ModelProvider): void {
  if (needsClientTools(request) && !provider.clientTools) throw new Error('the model takes no client tools or structured output');
}

/** a model of the chain that gave no answer: its provider named once its ref resolved */
const failureOf = (ref: string, provider: string | undefined, error: string): ModelFailure => (provider === undefined ? { ref, error } : { ref, provider, error });

/**
 * Asks the models of `refs` in order until one answers. The caller's `signal` bounds the whole
 * turn (its time limit, a shutdown): when it fires, no further model is tried and its reason is
 * thrown. Client tools and structured output (`extra`) go to whichever model answers; a model
 * that cannot take them (the embedded one) is passed over. While fallbacks remain, a model gets an even share of the time left (`deadline`), so a
 * hanging primary still leaves the fallbacks their turn inside the run's limit.
 */
export async function completeWithFallbacks(
  refs: string[],
  models: ModelRegistry,
  /** its model and signal are each model's own: a turn's request names the first's already */
  request: Omit<ModelRequest, 'model' | 'signal'> & Partial<Pick<ModelRequest, 'model' | 'signal'>>,
  options: { signal?: AbortSignal; deadline?: number; now?: () => number },
): Promise<FallbackResult> {
  const now = options.now ?? Date.now;
  const failures: ModelFailure[] = [];
  let lastError: unknown;
  for (let index = 0; index < refs.length; index++) {
    const ref = refs[index]!;
    options.signal?.throwIfAborted();
    const left = refs.length - index;
    // while fallbacks remain, a time share of its own (GC-safe, see deadline.ts); the last model has the caller's limit only
    const shareMs = left > 1 && options.deadline !== undefined ? Math.max(0, (options.deadline - now()) / left) : undefined;
    const share = shareMs === undefined ? undefined : deadline(shareMs, options.signal);
    let providerId: string | undefined;
    try {
      const { provider, resolved } = models.resolve(ref);
      providerId = resolved.provider;
      refuseUnfit(request, provider);
      const signal = share?.signal ?? options.signal;
      // the request as it is when it names this model and signal already (a turn's first model), else a copy naming them
      // (a limit of the request's own is left out: this signal is the call's limit)
      const asked = request.model === resolved.model && request.signal === signal && request.limit === undefined ? (request as ModelRequest) : copyWith(request, { model: resolved.model, signal, limit: undefined });
      const response = await provider.complete(asked);
      return copyWith(response, { ref: resolved.ref, failures });
    } catch (error) {
      if (options.signal?.aborted) throw error;
      const reason = share?.timedOut ? `no answer within its share of the time limit (${Math.round(shareMs! / 1000)}s)` : failureCause(error);
      failures.push(failureOf(ref, providerId, reason));
      lastError = error;
    } finally {
      share?.clear();
    }
  }
  throw new AllModelsFailedError(failures, lastError);
}

/**
 * completeWithFallbacks for a chain whose models all answer in this process
 * (ModelRegistry.answersInProcess): the answer in the call itself. Nothing can hang, so no model
 * gets a share of the time, and there is no signal to heed (RunAbort); a model fails only by
 * throwing, and the next one is tried as there.
 */
export function completeInProcess(refs: string[], models: ModelRegistry, request: Omit<ModelRequest, 'model'> & Partial<Pick<ModelRequest, 'model'>>): FallbackResult {
  const failures: ModelFailure[] = [];
  let lastError: unknown;
  for (const ref of refs) {
    let providerId: string | undefined;
    try {
      const { provider, resolved } = models.resolve(ref);
      providerId = resolved.provider;
      refuseUnfit(request, provider);
      if (!provider.completeNow) throw new Error('the model does not answer in this process');
      const asked = request.model === resolved.model ? (request as ModelRequest) : copyWith(request, { model: resolved.model });
      return copyWith(provider.completeNow(asked), { ref: resolved.ref, failures });
    } catch (error) {
      failures.push(failureOf(ref, providerId, failureCause(error)));
      lastError = error;
    }
  }
  throw new AllModelsFailedError(failures, lastError);
}
