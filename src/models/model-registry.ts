import type { HeraldConfig } from '../config/schema.js';
import { EmbeddedModel } from './embedded-model.js';
import { EMBEDDED_PROVIDER, resolveModelRef, type ResolvedModel } from './model-refs.js';
import { OpenAIModel } from './openai-model.js';
import type { ModelProvider } from './provider.js';

/** Providers by name, built once from config; `embedded` is always there. */
export class ModelRegistry {
  private readonly providers = new Map<string, ModelProvider>();

  constructor(private readonly config: HeraldConfig) {
    this.providers.set(EMBEDDED_PROVIDER, new EmbeddedModel());
    for (const [name, provider] of Object.entries(config.models.providers)) {
      this.providers.set(name, new OpenAIModel(provider));
    }
  }

  /** resolves a ref (validated at config load or request time) to its provider */
  resolve(ref: string): { resolved: ResolvedModel; provider: ModelProvider } {
    const resolved = resolveModelRef(ref, this.config);
    const provider = resolved && this.providers.get(resolved.provider);
    if (!resolved || !provider) throw new Error(`unknown model "${ref}"`);
    return { resolved, provider };
  }
}
