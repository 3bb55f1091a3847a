import { startFakeServer, type FakeServer, type RecordedRequest } from './fake-server.js';

export const EMBEDDINGS_KEY = 'sk-embeddings-0123456789abcdef';
export const DIMENSIONS = 32;

// words of one meaning map to one concept, so the fake's vectors find what full text cannot
// ("sofa" and "furniture", "pick up" and "collected"): what a real embeddings model is for
const CONCEPTS: Record<string, string> = {
  sofa: 'furniture', couch: 'furniture', furniture: 'furniture', chair: 'furniture',
  pick: 'collect', pickup: 'collect', collected: 'collect', collect: 'collect',
  home: 'home', house: 'home', send: 'return', back: 'return', return: 'return', returns: 'return',
};

/** a deterministic unit vector of a text's concepts (a word's hash when it has none) */
export function fakeEmbedding(text: string): number[] {
  const v = new Array<number>(DIMENSIONS).fill(0);
  for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    const concept = CONCEPTS[word] ?? word;
    let h = 2166136261;
    for (const c of concept) h = Math.imul(h ^ c.charCodeAt(0), 16777619);
    v[(h >>> 0) % DIMENSIONS]! += CONCEPTS[word] ? 3 : 1;
  }
  const norm = Math.hypot(...v) || 1;
  return v.map((x) => x / norm);
}

const error = (status: number, message: string, code: string | null, param: string | null = null) => ({
  status,
  body: { error: { message, type: 'invalid_request_error', param, code } },
});

/**
 * A fake of OpenAI's embeddings endpoint, as documented at
 * https://platform.openai.com/docs/api-reference/embeddings/create: `POST /v1/embeddings` with a
 * Bearer key and `{ model, input, encoding_format? }`, `input` a string or an array of at most 2048
 * non-empty strings; answers `{ object: "list", data: [{ object: "embedding", index, embedding }],
 * model, usage: { prompt_tokens, total_tokens } }`, and errors as `{ error: { message, type, param,
 * code } }` (401 for a wrong key, 400 for a bad input, 404 for an unknown model). `dimensions` shortens
 * the vectors (text-embedding-3 and later: "the number of dimensions the resulting output
 * embeddings should have"), kept unit length; `encoding_format: "base64"` answers each vector as
 * base64 of its little-endian float32 values, as the official client decodes it.
 */
export async function startFakeEmbeddings(model = 'embed-1', options: { before?: (req: RecordedRequest) => Promise<void>; withoutUsage?: boolean } = {}): Promise<FakeServer> {
  return startFakeServer(async (req: RecordedRequest) => {
    // a test holding the answers (a provider that takes its time)
    await options.before?.(req);
    if (req.method !== 'POST' || req.path !== '/v1/embeddings') return error(404, `Unknown request URL: ${req.method} ${req.path}.`, 'unknown_url');
    if (req.headers.authorization !== `Bearer ${EMBEDDINGS_KEY}`) return error(401, 'Incorrect API key provided.', 'invalid_api_key');
    const body = req.json as { model?: unknown; input?: unknown; encoding_format?: unknown; dimensions?: unknown } | undefined;
    if (body?.model !== model) return error(404, `The model \`${String(body?.model)}\` does not exist or you do not have access to it.`, 'model_not_found');
    const input = typeof body.input === 'string' ? [body.input] : body.input;
    if (!Array.isArray(input) || input.length === 0 || input.length > 2048 || !input.every((s) => typeof s === 'string' && s.length > 0)) {
      return error(400, "'$.input' is invalid. Please check the API reference: https://platform.openai.com/docs/api-reference.", null, 'input');
    }
    if (body.encoding_format !== undefined && body.encoding_format !== 'float' && body.encoding_format !== 'base64') return error(400, 'Invalid encoding_format.', null, 'encoding_format');
    const dimensions = body.dimensions ?? DIMENSIONS;
    if (typeof dimensions !== 'number' || !Number.isInteger(dimensions) || dimensions < 1 || dimensions > DIMENSIONS) {
      return error(400, `Invalid value for 'dimensions' = ${String(body.dimensions)}. Must be between 1 and ${DIMENSIONS}.`, null, 'dimensions');
    }
    const tokens = input.reduce((n: number, s: string) => n + s.split(/\s+/).length, 0);
    const vector = (s: string) => {
      const whole = fakeEmbedding(s);
      const v = whole.slice(0, dimensions);
      const norm = Math.hypot(...v) || 1;
      const unit = dimensions === DIMENSIONS ? whole : v.map((x) => x / norm);
      return body.encoding_format === 'base64' ? Buffer.from(Float32Array.from(unit).buffer).toString('base64') : unit;
    };
    return {
      body: {
        object: 'list',
        data: input.map((s: string, index: number) => ({ object: 'embedding', index, embedding: vector(s) })),
        model,
        // `withoutUsage`: an OpenAI-compatible server that counts nothing (some local servers leave usage out)
        ...(!options.withoutUsage && { usage: { prompt_tokens: tokens, total_tokens: tokens } }),
      },
    };
  });
}

/** an embeddings provider whose answers wait until the test calls `release` (a document is being read and stored until then) */
export async function startHeldEmbeddings(model = 'embed-1'): Promise<{ fake: FakeServer; release: () => void }> {
  let release!: () => void;
  const opened = new Promise<void>((resolve) => (release = resolve));
  return { fake: await startFakeEmbeddings(model, { before: () => opened }), release };
}
