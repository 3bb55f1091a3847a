import path from 'node:path';
import { Writable } from 'node:stream';
import { afterEach } from 'vitest';
import { loadConfigValue } from '../helpers/builtins.js';
import { createGateway, type Gateway } from '../../src/gateway/gateway.js';
import { createLogger } from '../../src/log/log.js';
import { baseConfig, tempDir } from '../helpers/start-herald.js';

export interface TestApp {
  gateway: Gateway;
  request: (path: string, init?: RequestInit) => Promise<Response>;
  logs: () => Record<string, unknown>[];
}

const open: Gateway[] = [];
afterEach(async () => {
  for (const gateway of open.splice(0)) await gateway.stop(0);
});

/** The gateway's Hono app, without a socket: HTTP behaviour through `app.request()`. `dir`: the config file's folder. */
export async function testApp(overrides: Record<string, unknown> = {}, dir = tempDir()): Promise<TestApp> {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _enc, cb) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      cb();
    },
  });
  const loaded = await loadConfigValue(baseConfig(overrides), path.join(dir, 'herald.json'));
  const gateway = await createGateway(loaded, { logger: createLogger({ level: 'debug', destination }) });
  await gateway.start();
  open.push(gateway);
  return {
    gateway,
    request: async (p, init) => gateway.app.request(p, init),
    logs: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}
