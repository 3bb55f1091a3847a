import { startFakeServer, type FakeServer, type RecordedRequest } from '../helpers/fake-server.js';
import { baseConfig } from '../helpers/start-herald.js';
import { completion } from '../models/fake-openai.js';
import { TELEGRAM_TOKEN, WEBHOOK_SECRET } from '../plugins/channel-cases.js';

/** The outside platforms of the alert tests: a Telegram fake (the alerts chat), a signed-webhook receiver, an OpenAI-compatible model. */
export const ALERTS_CHAT = '-100123';
/** a chat the Bot API refuses for good: https://core.telegram.org/bots/api#making-requests (400, ok:false, description) */
export const GONE_CHAT = '-1009';
/** a chat the Bot API throttles: 429 with parameters.retry_after (https://core.telegram.org/bots/api#responseparameters) */
export const THROTTLED_CHAT = '-1002';

export interface Platforms {
  telegram: FakeServer;
  webhook: FakeServer;
  model: FakeServer;
  /** lets held model calls answer */
  release(): void;
  throttle: { on: boolean };
}

/** the platforms' fakes, started through `fake` (which closes them after the test) */
export async function platforms(fake: (handler: Parameters<typeof startFakeServer>[0]) => Promise<FakeServer>): Promise<Platforms> {
  const throttle = { on: true };
  const telegram = await fake((r: RecordedRequest) => {
    const chat = String(r.json?.chat_id);
    if (chat === GONE_CHAT) return { status: 400, body: { ok: false, error_code: 400, description: 'Bad Request: chat not found' } };
    if (chat === THROTTLED_CHAT && throttle.on) {
      return { status: 429, body: { ok: false, error_code: 429, description: 'Too Many Requests: retry after 1', parameters: { retry_after: 1 } } };
    }
    return { body: { ok: true, result: { message_id: 1 } } };
  });
  const webhook = await fake(() => ({ status: 200, body: { ok: true } }));
  let held: (() => void)[] = [];
  const model = await fake(async (r) => {
    const last = String(r.json?.messages?.at(-1)?.content ?? '');
    // https://platform.openai.com/docs/guides/error-codes: 500 `{error:{message,type}}`
    if (last.includes('FAIL')) return { status: 500, body: { error: { message: 'The server had an error', type: 'server_error', param: null, code: null } } };
    if (last.includes('HOLD')) await new Promise<void>((resolve) => held.push(resolve));
    return { body: completion('done') };
  });
  const release = () => {
    for (const resolve of held.splice(0)) resolve();
    held = [];
  };
  return { telegram, webhook, model, release, throttle };
}

export function config(p: Platforms, overrides: Record<string, unknown>): Record<string, unknown> {
  return baseConfig({
    models: { providers: { fake: { api: 'openai', baseUrl: `${p.model.url}/v1` } } },
    agents: { defaults: { model: 'fake/test-model' } },
    channels: { telegram: { botToken: TELEGRAM_TOKEN, baseUrl: p.telegram.url }, webhook: { url: `${p.webhook.url}/alerts`, secret: WEBHOOK_SECRET } },
    delivery: { baseDelayMs: 10, maxDelayMs: 50, maxAttempts: 3 },
    hooks: {
      mappings: [
        { id: 'github', match: { path: 'github' }, messageTemplate: '{{ note }}', deliver: false },
        { id: 'stripe', match: { path: 'stripe' }, action: 'wake', textTemplate: 'stripe {{ type }}' },
      ],
    },
    ...overrides,
    alerts: { targets: [{ channel: 'telegram', to: ALERTS_CHAT }, { channel: 'webhook' }], evaluateEvery: '100ms', ...(overrides.alerts as object) },
  });
}

/** the texts the alerts chat received */
export const alertTexts = (p: Platforms) => p.telegram.requests.filter((r) => String(r.json?.chat_id) === ALERTS_CHAT).map((r) => String(r.json.text));

