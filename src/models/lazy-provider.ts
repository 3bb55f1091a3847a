import type { ModelProvider, ModelRequest } from './provider.js';

/**
 * A provider built on its first call: its client library (the `openai` package, ~13 MB and
 * ~150 modules) is imported then, not when herald starts, so a gateway that never calls an
 * upstream model never loads it.
 */
export function lazyProvider(load: () => Promise<ModelProvider>): ModelProvider {
  let loading: Promise<ModelProvider> | undefined;
  const provider = () => (loading ??= load().catch((error: unknown) => {
    loading = undefined; // a failed import is tried again on the next call
    throw error;
  }));
  return {
    complete: async (request: ModelRequest) => (await provider()).complete(request),
    async *stream(request: ModelRequest) {
      yield* (await provider()).stream(request);
    },
  };
}
