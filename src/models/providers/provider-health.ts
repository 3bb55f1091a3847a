import type { HealthLedger } from '../../utils/health-ledger.js';
import { failureCause } from './provider-failure.js';
import { abortedOf, type ModelProvider, type ModelRequest } from '../provider.js';

/**
 * A provider whose calls tell `ledger` how they ended, under the provider's name: an answer
 * clears its failures, a refusal or a network error is one more (with `failureCause`'s words:
 * `401 Incorrect API key provided (HTTP 401)`, `Connection error. (ECONNREFUSED 127.0.0.1:8797)`).
 * A call its caller gave up on (a client gone, a run cancelled or out of time) says nothing of
 * the provider and is not counted.
 */
export function healthRecorded(provider: ModelProvider, name: string, ledger: HealthLedger, apiKey?: string): ModelProvider {
  // an upstream may echo the key it refused ("Incorrect API key provided: sk-…"): the cause is shown and shared among replicas
  const masked = (cause: string) => (apiKey && apiKey.length >= 4 ? cause.split(apiKey).join('***') : cause);
  const failed = (request: ModelRequest, error: unknown) => {
    if (!abortedOf(request)) ledger.failed(name, masked(failureCause(error)));
  };
  const recorded: ModelProvider = {
    clientTools: provider.clientTools,
    complete: (request) =>
      provider.complete(request).then(
        (response) => {
          ledger.ok(name);
          return response;
        },
        (error: unknown) => {
          failed(request, error);
          throw error;
        },
      ),
    async *stream(request) {
      try {
        yield* provider.stream(request);
        ledger.ok(name);
      } catch (error) {
        failed(request, error);
        throw error;
      }
    },
  };
  const each = provider.streamEach?.bind(provider);
  if (each) {
    recorded.streamEach = (request, onEvent) =>
      each(request, onEvent).then(
        () => ledger.ok(name),
        (error: unknown) => {
          failed(request, error);
          throw error;
        },
      );
  }
  return recorded;
}
