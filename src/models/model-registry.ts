import type { HeraldConfig } from '../config/schema.js';
import { HeraldError } from '../errors.js';
import { EmbeddedModel, type QuoteKnowledge } from './embedded-model.js';
import { missingKeyMessage } from './model-keys.js';
import { EMBEDDED_PROVIDER, resolveModelRef, type ResolvedModel } from './model-refs.js';
import { OpenAIModel, type OpenAIProviderConfig } from './providers/openai-model.js';
import type { ModelInput } from './providers/media-messages.js';
import type { ModelProvider } from './provider.js';
import { catalogueProvider } from './providers/provider-catalogue.js';
import { tracedProvider } from './model-span.js';
import { tracingOn } from '../tracing/tracing.js';
import { HealthLedger } from '../utils/health-ledger.js';
import { healthRecorded } from './providers/provider-health.js';

/**
 * Providers by name, built once from config; `embedded` is always there, catalogue providers
 * (openai, openrouter, ...) are made on first use with the key their environment variable holds.
 */
export class ModelRegistry {
  private readonly providers = new Map<string, ModelProvider>();
  /** answersInProcess's answer per ref under the config in use: every run asks it of its chain */
  private readonly inProcess = new Map<string, boolean>();
  /** each ref resolved to a provider this registry keeps, under the config in use: every model call of every turn asks */
  private readonly resolvedRefs = new Map<string, { resolved: ResolvedModel; provider: ModelProvider }>();
  /**
   * how each provider's last calls ended (the embedded model's are not counted: it answers in
   * this process), in this process's memory: each replica knows its own calls
   */
  readonly health: HealthLedger;

  constructor(
    private config: HeraldConfig,
    /** the embedded model's answer from knowledge (knowledge's `extractiveAnswer`) */
    private readonly quoteKnowledge: QuoteKnowledge,
    private readonly env: NodeJS.ProcessEnv = process.env,
    /** told when a provider turns unhealthy, fails again or recovers (the console's live Overview) */
    onHealthChange?: () => void,
  ) {
    this.health = new HealthLedger(onHealthChange);
    this.useConfig(config);
  }

  /** (re)builds the providers of `models.providers` (a config reload); catalogue providers are made again on use */
  useConfig(config: HeraldConfig): void {
    this.config = config;
    this.providers.clear();
    this.inProcess.clear();
    this.resolvedRefs.clear();
    this.providers.set(EMBEDDED_PROVIDER, new EmbeddedModel(this.quoteKnowledge));
    for (const [name, provider] of Object.entries(config.models.providers)) {
      this.providers.set(name, healthRecorded(openAIModel({ ...provider, input: this.inputOf(name) }), name, this.health, provider.apiKey));
    }
    // a provider the new config no longer names is no longer shown (the catalogue's are named by the model refs)
    this.health.retain((name) => name in config.models.providers || catalogueProvider(name) !== undefined);
  }

  /**
   * true when every model of `refs` answers in this process, with no I/O (the embedded one):
   * nothing can interrupt such an answer half-way, so its turn needs no AbortSignal. An unknown
   * ref is not: its turn fails as it would have.
   */
  answersInProcess(refs: readonly string[]): boolean {
    for (const ref of refs) {
      let known = this.inProcess.get(ref);
      if (known === undefined) {
        const resolved = resolveModelRef(ref, this.config);
        known = resolved !== undefined && this.providers.get(resolved.provider) instanceof EmbeddedModel;
        // refs come from config and from requests (a hook's model field): bounded, not kept without end
        if (this.inProcess.size >= 1000) this.inProcess.clear();
        this.inProcess.set(ref, known);
      }
      if (!known) return false;
    }
    return true;
  }

  /** resolves a ref (validated at config load or request time) to its provider */
  resolve(ref: string): { resolved: ResolvedModel; provider: ModelProvider } {
    let found = this.resolvedRefs.get(ref);
    if (!found) {
      const resolved = resolveModelRef(ref, this.config);
      const provider = resolved && (this.providers.get(resolved.provider) ?? this.fromCatalogue(resolved));
      if (!resolved || !provider) throw new Error(`unknown model "${ref}"`);
      found = { resolved, provider };
      // a provider short of its key is made again at each call (fromCatalogue): not kept; refs come from requests too: bounded
      if (this.providers.get(resolved.provider) === provider) {
        if (this.resolvedRefs.size >= 1000) this.resolvedRefs.clear();
        this.resolvedRefs.set(ref, found);
      }
    }
    // every model call of every turn resolves its provider here: the one place its span begins
    return tracingOn() ? { resolved: found.resolved, provider: tracedProvider(found.provider, found.resolved) } : found;
  }

  /** what the models of `provider` read besides text (models.input: the model's ref, else `<provider>/*`), from the config of the moment */
  private inputOf(provider: string): (model: string) => ModelInput {
    // every model request asks: the last answer is kept while the config's models.input and the model stay the same (a reload replaces the config)
    let last: { input: HeraldConfig['models']['input']; model: string; read: ModelInput } | undefined;
    return (model) => {
      const input = this.config.models.input;
      if (last?.input === input && last.model === model) return last.read;
      const own = `${provider}/${model}`;
      const all = `${provider}/*`;
      const read = (Object.hasOwn(input, own) ? input[own] : Object.hasOwn(input, all) ? input[all] : undefined) ?? ['text'];
      last = { input, model, read };
      return read;
    };
  }

  private fromCatalogue(resolved: ResolvedModel): ModelProvider | undefined {
    const entry = catalogueProvider(resolved.provider);
    if (!entry) return undefined;
    const apiKey = entry.keyEnv ? this.env[entry.keyEnv] : undefined;
    // a provider that fails each call, not a failed resolve: the turn's fallbacks still get their turn,
    // and the run's error says which variable to set (not cached: it is looked for again next time)
    if (entry.keyEnv && !apiKey) return healthRecorded(missingKeyModel(missingKeyMessage(resolved.ref, { provider: resolved.provider, keyEnv: entry.keyEnv })), resolved.provider, this.health);
    const provider = healthRecorded(openAIModel({ baseUrl: entry.baseUrl, apiKey, input: this.inputOf(resolved.provider) }), resolved.provider, this.health, apiKey);
    this.providers.set(resolved.provider, provider);
    return provider;
  }
}

/** an OpenAI-compatible provider (its client is node:http only: nothing heavy to defer) */
function openAIModel(config: OpenAIProviderConfig): ModelProvider {
  return new OpenAIModel(config);
}

function missingKeyModel(message: string): ModelProvider {
  const fail = () => new HeraldError('HERALD_MODEL_FAILED', message);
  return {
    // an OpenAI-compatible provider short of its key: tools are refused by that, not as unsupported
    clientTools: true,
    complete: () => Promise.reject(fail()),
    // eslint-disable-next-line require-yield
    async *stream() {
      throw fail();
    },
  };
}
