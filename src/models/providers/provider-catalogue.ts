/**
 * Well-known providers a model ref may name without a `models.providers` entry, so OpenClaw
 * configs (`openai/gpt-5.2-mini`, `openrouter/...`) load unchanged. Each is reached through its
 * OpenAI-compatible endpoint; the key comes from the environment variable its own tools use.
 * An explicit `models.providers.<name>` always wins over the entry here.
 */
export interface CatalogueProvider {
  baseUrl: string;
  /** the environment variable holding the API key; none for a local server */
  keyEnv?: string;
}

export const providerCatalogue: Readonly<Record<string, CatalogueProvider>> = Object.freeze({
  // https://platform.openai.com/docs/api-reference
  openai: { baseUrl: 'https://api.openai.com/v1', keyEnv: 'OPENAI_API_KEY' },
  // https://openrouter.ai/docs/api-reference/overview
  openrouter: { baseUrl: 'https://openrouter.ai/api/v1', keyEnv: 'OPENROUTER_API_KEY' },
  // https://docs.anthropic.com/en/api/openai-sdk (Anthropic's OpenAI SDK compatibility)
  anthropic: { baseUrl: 'https://api.anthropic.com/v1', keyEnv: 'ANTHROPIC_API_KEY' },
  // https://console.groq.com/docs/openai
  groq: { baseUrl: 'https://api.groq.com/openai/v1', keyEnv: 'GROQ_API_KEY' },
  // https://docs.mistral.ai/api/
  mistral: { baseUrl: 'https://api.mistral.ai/v1', keyEnv: 'MISTRAL_API_KEY' },
  // https://api-docs.deepseek.com/
  deepseek: { baseUrl: 'https://api.deepseek.com/v1', keyEnv: 'DEEPSEEK_API_KEY' },
  // https://docs.x.ai/docs/api-reference
  xai: { baseUrl: 'https://api.x.ai/v1', keyEnv: 'XAI_API_KEY' },
  // https://docs.together.ai/docs/openai-api-compatibility
  together: { baseUrl: 'https://api.together.xyz/v1', keyEnv: 'TOGETHER_API_KEY' },
  // https://ai.google.dev/gemini-api/docs/openai
  google: { baseUrl: 'https://generativelanguage.googleapis.com/v1beta/openai', keyEnv: 'GEMINI_API_KEY' },
  // https://github.com/ollama/ollama/blob/main/docs/openai.md (local, no key)
  ollama: { baseUrl: 'http://127.0.0.1:11434/v1' },
});

export function catalogueProvider(name: string): CatalogueProvider | undefined {
  return Object.hasOwn(providerCatalogue, name) ? providerCatalogue[name] : undefined;
}
