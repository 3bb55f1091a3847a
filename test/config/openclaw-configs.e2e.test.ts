import fs from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfigFile, main } from '../helpers/builtins.js';
import { createGateway } from '../../src/gateway/gateway.js';
import { createLogger } from '../../src/log/log.js';
import { tempDir } from '../helpers/start-herald.js';

/**
 * OpenClaw's documented example configs (test/fixtures/openclaw-configs, verbatim: JSON5 under a
 * .json name) must pass `herald config check` and start, unchanged, and answer as OpenClaw's docs say.
 */
const FIXTURES = fileURLToPath(new URL('../fixtures/openclaw-configs/', import.meta.url));
const files = fs.readdirSync(FIXTURES).filter((f) => f.endsWith('.json')).sort();

let home: string;
const savedHome = process.env.HOME;
beforeAll(() => {
  // `~/.openclaw/...` in the configs lands in a folder of this test, not the real home
  home = tempDir('herald-home-');
  process.env.HOME = home;
  for (const key of ['OPENAI_API_KEY', 'OPENROUTER_API_KEY']) delete process.env[key];
});
afterAll(() => {
  process.env.HOME = savedHome;
});

/** the config where OpenClaw keeps it, ~/.openclaw (its transformsDir must stay inside the config's folder), in a home of its own */
function copy(file: string): string {
  home = tempDir('herald-home-');
  process.env.HOME = home;
  const dir = path.join(home, '.openclaw');
  fs.mkdirSync(dir, { recursive: true });
  const target = path.join(dir, file);
  fs.copyFileSync(path.join(FIXTURES, file), target);
  return target;
}

async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const sink = (append: (s: string) => void) => new Writable({ write: (c, _e, cb) => (append(String(c)), cb()) });
  const io = {
    out: (s: string) => (out += `${s}\n`),
    err: (s: string) => (err += `${s}\n`),
    stdout: sink((s) => (out += s)),
    stderr: sink((s) => (err += s)),
  };
  const code = await main(args, io as unknown as Parameters<typeof main>[1]);
  return { code, out, err };
}

describe("OpenClaw's documented configs", () => {
  it('are all here', () => {
    expect(files).toHaveLength(11);
  });

  for (const file of files) {
    it(`${file}: passes herald config check and starts`, async () => {
      const config = copy(file);
      const check = await cli(['config', 'check', '--config', config]);
      expect(check.err).toBe('');
      expect(check.code).toBe(0);
      expect(check.out).toContain(`${config}: ok`);

      const lines: string[] = [];
      const logger = createLogger({ level: 'debug', destination: new Writable({ write: (c, _e, cb) => (lines.push(String(c)), cb()) }) });
      const loaded = await loadConfigFile(config);
      const gateway = await createGateway(loaded, { logger });
      try {
        await gateway.start();
        const { hooks } = loaded.config;
        if (hooks.enabled) {
          // the documented first request: a wake with the documented token
          const res = await gateway.app.request(`${hooks.path}/wake`, {
            method: 'POST',
            headers: { Authorization: `Bearer ${hooks.token}`, 'Content-Type': 'application/json' },
            body: JSON.stringify({ text: 'New email received', mode: 'now' }),
          });
          expect(res.status).toBe(200);
          expect(await res.json()).toEqual({ ok: true, mode: 'now', eventOutcome: 'queued' });
        }
      } finally {
        await gateway.stop(0);
      }
    });
  }

  it('short tokens load with a warning on loopback', async () => {
    const check = await cli(['config', 'check', '--config', copy('f06-webhook-md-enable.json')]);
    expect(check.out).toMatch(/warning: hooks\.token: shorter than 16 characters; accepted because gateway\.host \(127\.0\.0\.1\) is loopback only/);
  });

  it('the gmail mapping of the configuration reference routes by agentId, session prefix and model as documented', async () => {
    const config = copy('head-configuration-reference-md-hooks.json');
    const loaded = await loadConfigFile(config);
    const gateway = await createGateway(loaded, { logger: createLogger({ level: 'silent' }) });
    try {
      expect(loaded.config.hooks).toMatchObject({ defaultSessionKey: 'hook:ingress', allowRequestSessionKey: false, allowedSessionKeyPrefixes: ['hook:'], allowedAgentIds: ['hooks', 'main'] });
      expect(loaded.config.hooks.transformsDir).toBe(path.join(home, '.openclaw/hooks/transforms'));
      const post = (p: string, body: unknown) =>
        gateway.app.request(`/hooks/${p}`, { method: 'POST', headers: { Authorization: 'Bearer shared-secret' }, body: JSON.stringify(body) });
      // a request body may not choose its session key: OpenClaw's answer, word for word
      const refused = await post('agent', { message: 'hi', sessionKey: 'hook:mine' });
      expect(refused.status).toBe(400);
      expect(await refused.json()).toEqual({ ok: false, error: 'sessionKey is disabled for external /hooks/agent payloads; set hooks.allowRequestSessionKey=true to enable' });
      // none chosen: hooks.defaultSessionKey
      const accepted = await post('agent', { message: 'hi', deliver: false });
      expect(accepted.status).toBe(202);
      const { runId } = (await accepted.json()) as { runId: string };
      expect(await gateway.store.runs.get(runId)).toMatchObject({ sessionKey: 'hook:ingress', agentId: 'main' });
    } finally {
      await gateway.stop(0);
    }
  });
});
