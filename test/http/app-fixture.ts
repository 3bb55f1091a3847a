import { onTestFinished } from 'vitest';
import { baseConfig, bootHerald, type HeraldFolder, type HeraldUnderTest } from '../helpers/start-herald.js';

/** the real gateway without a socket: requests go to its Hono app through `app.request()` */
export interface TestApp extends HeraldUnderTest {
  /** a request to the app: a path (`/hooks/wake`) or a whole URL */
  request: (path: string, init?: RequestInit) => Promise<Response>;
  /** `fetch` for a client that takes one (the `openai` package's `fetch` option): the app answers, no socket */
  fetch: typeof fetch;
  /** the origin to give such a client as its base URL (`${origin}/v1`): a name only, nothing listens there */
  origin: string;
  /** stops and starts again on the same folder (same database and config) */
  restart(): Promise<TestApp>;
}

const ORIGIN = 'http://herald.test';

/**
 * The gateway of `baseConfig(overrides)`, its config written into a folder as `startHerald`
 * writes it (test/helpers/start-herald.ts, the same code), its logs captured, and HTTP
 * behaviour tested through `app.request()`. Made inside a test, it stops when the test ends
 * (its restarts too); made in a `beforeAll`, it is the file's to stop.
 */
export async function testApp(overrides: Record<string, unknown> = {}, folder: HeraldFolder = {}): Promise<TestApp> {
  return appOf(baseConfig(overrides), folder, inTest());
}

function inTest(): boolean {
  try {
    onTestFinished(() => {});
    return true;
  } catch {
    return false;
  }
}

async function appOf(config: Record<string, unknown>, folder: HeraldFolder, stopWithTest: boolean): Promise<TestApp> {
  const herald = await bootHerald(config, folder);
  if (stopWithTest) onTestFinished(() => herald.stop());
  const app: TestApp = {
    dir: herald.dir,
    configFile: herald.configFile,
    gateway: herald.gateway,
    get logs() {
      return herald.logs;
    },
    rawLogs: herald.rawLogs,
    stop: herald.stop,
    request: async (p, init) => herald.gateway.app.request(p, init),
    origin: ORIGIN,
    fetch: async (input, init) => herald.gateway.app.request(input instanceof URL ? input.href : input, init),
    async restart() {
      await herald.stop();
      return appOf(config, { dir: herald.dir, logLevel: folder.logLevel }, stopWithTest && inTest());
    },
  };
  return app;
}
