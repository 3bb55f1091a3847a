/**
 * Run by test/plugins/hung-request-gc.e2e.test.ts as `node --expose-gc --import tsx <this file>`.
 * A platform that accepts the connection and never answers, while garbage collection runs
 * every few milliseconds: each of herald's outgoing calls must still end at its time limit.
 * Prints one JSON line per call: {name, ended, error}. Exits 1 if a call is still hanging.
 */
import http from 'node:http';
import { Writable } from 'node:stream';
import { createLogger } from '../../src/log/log.js';
import { deadline } from '../../src/time/deadline.js';
import { OpenAIModel } from '../../src/models/providers/openai-model.js';
import { telegramPlugin } from '../../plugins/telegram/manifest.js';
import { msteamsPlugin } from '../../plugins/msteams/manifest.js';
import { googleRequest } from '../../plugins/gmail/google/google-api.js';
import type { PluginDefinition } from '../../src/plugin-sdk/sdk.js';

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) {
  console.log(JSON.stringify({ name: 'setup', ended: false, error: 'run with --expose-gc' }));
  process.exit(2);
}

const server = http.createServer(() => {}); // accepts, reads, never answers
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
const collector = setInterval(() => gc(), 5);
const guard = setTimeout(() => {
  console.log(JSON.stringify({ name: 'guard', ended: false, error: 'a call is still hanging' }));
  process.exit(1);
}, 15_000);

const quiet = createLogger({ level: 'silent', destination: new Writable({ write: (_c, _e, cb) => cb() }) });
async function channel(plugin: unknown, config: Record<string, unknown>) {
  const p = plugin as PluginDefinition;
  const instance = await p.create({ config: p.config.parse(config), logger: quiet, host: {} as never });
  return instance.channel!;
}
const shutdown = new AbortController(); // never aborted: only the time limits can end the calls
const base = { deliveryId: 'd1', runId: 'r1', sessionKey: 'hook:gc', agentId: 'main', createdAt: new Date().toISOString(), signal: shutdown.signal, requestTimeoutMs: 300 };

const calls: Record<string, () => Promise<unknown>> = {
  'delivery (telegram)': async () => (await channel(telegramPlugin, { botToken: '1:x', baseUrl: url })).send({ ...base, to: '1', text: 'hi' }),
  'delivery (teams token)': async () =>
    (await channel(msteamsPlugin, { appId: 'a', appPassword: 'p', serviceUrl: url, tokenUrl: `${url}/token` })).send({ ...base, to: 'c', text: 'hi' }),
  'model call (heartbeat, chat: deadline over the shutdown signal)': async () => {
    const limit = deadline(300, shutdown.signal);
    try {
      return await new OpenAIModel({ baseUrl: `${url}/v1` }).complete({ model: 'm', messages: [{ role: 'user', content: 'hi' }], purpose: 'run', signal: limit.signal });
    } finally {
      limit.clear();
    }
  },
  'google call (gmail)': () => googleRequest(async () => 'token', { step: 'gmail watch', url: `${url}/gmail/v1/users/me/watch`, method: 'POST', body: {}, timeoutMs: 300 }),
};

for (const [name, call] of Object.entries(calls)) {
  try {
    await call();
    console.log(JSON.stringify({ name, ended: true, error: null }));
  } catch (error) {
    console.log(JSON.stringify({ name, ended: true, error: String((error as Error).message ?? error) }));
  }
}
clearInterval(collector);
clearTimeout(guard);
server.closeAllConnections();
server.close();
process.exit(0);
