import { listenGateway } from '../../src/http/server/gateway-server.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { loadConfigFile } from './builtins.js';
import { createGateway, type Gateway } from '../../src/gateway/gateway.js';
import { createLogger } from '../../src/log/log.js';
import { PG_URL, uniqueSchema } from './postgres.js';

export const HOOK_TOKEN = 'hook-token-0123456789abcdef';
export const GATEWAY_TOKEN = 'gateway-token-0123456789abcdef';
export const API_KEY = 'sk-test-0123456789abcdef0123';

/**
 * The store the e2e tests run on: an in-folder SQLite file, or, in the `postgres` test project
 * (HERALD_TEST_STORAGE=postgres), a fresh schema of the test database for each herald, dropped
 * when the run ends.
 */
export function storageUnderTest(): Record<string, unknown> {
  if (process.env.HERALD_TEST_STORAGE !== 'postgres') return { sqlite: './data/herald.db' };
  const run = process.env.HERALD_TEST_PG_RUN;
  if (!run) throw new Error('HERALD_TEST_STORAGE=postgres without the postgres project setup (test/helpers/postgres-run.ts)');
  return { postgres: { url: PG_URL, schema: uniqueSchema(run), poolSize: 4 } };
}

/** a config with hooks on, the test tokens, the store under test, a fast heartbeat off */
export function baseConfig(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const base: Record<string, any> = {
    gateway: { host: '127.0.0.1', port: 0, auth: { token: GATEWAY_TOKEN } },
    hooks: { enabled: true, token: HOOK_TOKEN },
    platform: { apiKeys: [{ name: 'test', key: API_KEY }] },
    heartbeat: { every: '0' },
    storage: storageUnderTest(),
  };
  // a storage given replaces the one under test: `sqlite` and `postgres` never mix
  if (overrides.storage) base.storage = overrides.storage;
  return deepMerge(base, overrides);
}

function deepMerge(a: Record<string, any>, b: Record<string, any>): Record<string, any> {
  const out = { ...a };
  for (const [k, v] of Object.entries(b)) {
    out[k] = v && typeof v === 'object' && !Array.isArray(v) && a[k] && typeof a[k] === 'object' ? deepMerge(a[k], v) : v;
  }
  return out;
}

export function tempDir(prefix = 'herald-test-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** a gateway started from a config file in a folder, its logs captured in memory */
export interface HeraldUnderTest {
  dir: string;
  configFile: string;
  gateway: Gateway;
  /** every log line, parsed */
  logs: Record<string, unknown>[];
  /** the raw log text, for "never logs X" assertions */
  rawLogs(): string;
  stop(): Promise<void>;
}

export interface HeraldFolder {
  /** the config's folder: a fresh one when absent; an existing herald.json in it is kept (a restart, an edited config) */
  dir?: string;
  /** more files written into the folder (transforms, mappings), by path relative to it */
  files?: Record<string, string>;
  /** the level logs are captured at: every line (debug) unless `config`, the level `herald serve` would log at */
  logLevel?: 'debug' | 'config';
}

/**
 * Writes `config` as herald.json into a folder (with `files`), starts the gateway from that file
 * with logs captured in memory, and listens on nothing: `startHerald` adds a socket, the app
 * fixture (test/http/app-fixture.ts) answers through `app.request()`.
 */
export async function bootHerald(config: Record<string, unknown>, options: HeraldFolder = {}): Promise<HeraldUnderTest> {
  const dir = options.dir ?? tempDir();
  const configFile = path.join(dir, 'herald.json');
  if (!options.dir || !fs.existsSync(configFile)) fs.writeFileSync(configFile, JSON.stringify(config, null, 2));
  for (const [name, text] of Object.entries(options.files ?? {})) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), text);
  }
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _enc, cb) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      cb();
    },
  });
  const loaded = await loadConfigFile(configFile);
  const logger = createLogger({ level: options.logLevel === 'config' ? loaded.config.gateway.log.level : 'debug', destination });
  const gateway = await createGateway(loaded, { logger });
  await gateway.start();
  let stopped = false;
  return {
    dir,
    configFile,
    gateway,
    get logs() {
      return lines.map((l) => {
        try {
          return JSON.parse(l) as Record<string, unknown>;
        } catch {
          return { raw: l };
        }
      });
    },
    rawLogs: () => lines.join('\n'),
    async stop() {
      if (stopped) return;
      stopped = true;
      await gateway.stop(0);
    },
  };
}

export interface RunningHerald extends HeraldUnderTest {
  url: string;
  /** stops and starts again on the same folder (same database and config) */
  restart(): Promise<RunningHerald>;
}

/**
 * Starts the real gateway, listening on 127.0.0.1:0, from a config file written into a
 * fresh folder (or `dir`), with logs captured in memory. For tests that need the socket (raw
 * or closed connections, bodies read as they stream, clients that take no custom fetch).
 */
export async function startHerald(config: Record<string, unknown> = baseConfig(), options: HeraldFolder = {}): Promise<RunningHerald> {
  const herald = await bootHerald(config, options);
  // as `herald serve` listens
  const server = await listenGateway(herald.gateway, '127.0.0.1', 0);
  const address = server.address() as { port: number };
  let closed = false;
  const running: RunningHerald = {
    dir: herald.dir,
    configFile: herald.configFile,
    gateway: herald.gateway,
    get logs() {
      return herald.logs;
    },
    rawLogs: herald.rawLogs,
    url: `http://127.0.0.1:${address.port}`,
    async stop() {
      if (!closed) {
        closed = true;
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
        });
      }
      await herald.stop();
    },
    async restart() {
      await running.stop();
      return startHerald(config, { dir: herald.dir });
    },
  };
  return running;
}

/** waits until `check` returns a truthy value (polling; no fixed sleeps in tests) */
export async function eventually<T>(check: () => T | Promise<T>, timeoutMs = 10_000, everyMs = 20): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value) return value as NonNullable<T>;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) throw new Error(`condition not met in ${timeoutMs}ms${last ? `: ${String(last)}` : ''}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

export function hookHeaders(token = HOOK_TOKEN): Record<string, string> {
  return { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
}
