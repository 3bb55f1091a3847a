import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { gmailConfigSchema } from '../../../plugins/gmail/config.js';
import { tailscaleExposure } from '../../../plugins/gmail/setup/tailscale.js';
import { createLogger } from '../../../src/log/log.js';
import { tempDir } from '../../helpers/start-herald.js';

const logger = createLogger({ level: 'silent' });
const gmail = (tailscale: unknown, serve: unknown = { bind: '127.0.0.1', port: 8788, path: '/' }) =>
  gmailConfigSchema.parse({ account: 'openclaw@gmail.com', tailscale, serve });

/** a stand-in `tailscale` on PATH that records its arguments, one call per line */
function fakeTailscale(exitCode = 0): { env: NodeJS.ProcessEnv; calls: () => string[] } {
  const dir = tempDir('fake-tailscale-');
  const log = path.join(dir, 'calls.log');
  fs.writeFileSync(path.join(dir, 'tailscale'), `#!/bin/sh\necho "$@" >> '${log}'\n[ ${exitCode} -ne 0 ] && echo 'serve config denied' >&2\nexit ${exitCode}\n`, { mode: 0o755 });
  return { env: { PATH: dir }, calls: () => (fs.existsSync(log) ? fs.readFileSync(log, 'utf8').trim().split('\n') : []) };
}

describe('hooks.gmail.tailscale', () => {
  it('off (the default) runs nothing', () => {
    expect(tailscaleExposure(gmail({}), logger, { PATH: '' })).toBeUndefined();
    expect(tailscaleExposure(gmail({ mode: 'off', path: '/x' }), logger, { PATH: '' })).toBeUndefined();
  });

  it('funnel runs the tailscale binary to publish the push endpoint, and turns it off at stop', async () => {
    const fake = fakeTailscale();
    const exposure = tailscaleExposure(gmail({ mode: 'funnel', path: '/gmail-pubsub' }), logger, fake.env)!;
    await exposure.start();
    expect(fake.calls()).toEqual(['funnel --bg --set-path=/gmail-pubsub http://127.0.0.1:8788']);
    await exposure.stop();
    expect(fake.calls()[1]).toBe('funnel --set-path=/gmail-pubsub off');
  });

  it('serve keeps the endpoint path when it is not /', async () => {
    const fake = fakeTailscale();
    await tailscaleExposure(gmail({ mode: 'serve' }, { port: 9000, path: '/gmail-pubsub' }), logger, fake.env)!.start();
    expect(fake.calls()).toEqual(['serve --bg --set-path=/gmail-pubsub http://127.0.0.1:9000/gmail-pubsub']);
  });

  it('without the binary, stops with the exact command to run', async () => {
    const exposure = tailscaleExposure(gmail({ mode: 'funnel', path: '/gmail-pubsub' }), logger, { PATH: tempDir() })!;
    await expect(exposure.start()).rejects.toThrow(
      'hooks.gmail.tailscale.mode is "funnel" but the tailscale binary is not installed (not on PATH). Install Tailscale (https://tailscale.com/download) and run: tailscale funnel --bg --set-path=/gmail-pubsub http://127.0.0.1:8788',
    );
  });

  it('a failing tailscale stops the start with its own words', async () => {
    const fake = fakeTailscale(1);
    await expect(tailscaleExposure(gmail({ mode: 'funnel' }), logger, fake.env)!.start()).rejects.toThrow(/`tailscale funnel --bg --set-path=\/ http:\/\/127\.0\.0\.1:8788` failed: serve config denied/);
  });
});
