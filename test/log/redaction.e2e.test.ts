import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log/log.js';
import { testApp } from '../http/app-fixture.js';
import { HOOK_TOKEN } from '../helpers/start-herald.js';

/** a logger at trace writing into a string: everything it would print */
function capturedLogger() {
  let text = '';
  const destination = new Writable({ write: (chunk, _e, cb) => ((text += String(chunk)), cb()) });
  return { logger: createLogger({ level: 'trace', destination }), output: () => text };
}

describe('log redaction', () => {
  it('censors secrets by key at the top of a line, two levels down, in errors and in child bindings', () => {
    const { logger, output } = capturedLogger();
    logger.info({ token: 'SECRET-top', config: { apiKey: 'SECRET-nested', other: 'kept-1' }, a: { b: { password: 'SECRET-deep' } } }, 'one');
    logger.error({ err: Object.assign(new Error('boom'), { clientSecret: 'SECRET-on-error' }) }, 'two');
    logger.child({ botToken: 'SECRET-binding', plugin: 'kept-2' }).warn({ list: [{ secret: 'SECRET-in-array' }] }, 'three');
    logger.info({ headers: { authorization: 'Bearer SECRET-auth', 'x-kept': 'kept-3' } }, 'four');
    const text = output();
    expect(text).not.toMatch(/SECRET-/);
    for (const kept of ['kept-1', 'kept-2', 'kept-3', 'boom']) expect(text).toContain(kept);
    const lines = text.trim().split('\n').map((l) => JSON.parse(l) as Record<string, any>);
    expect(lines[0]).toMatchObject({ token: '[redacted]', config: { apiKey: '[redacted]', other: 'kept-1' }, a: { b: { password: '[redacted]' } } });
    expect(lines[1]!.err).toMatchObject({ message: 'boom', clientSecret: '[redacted]' });
    expect(lines[1]!.err.stack).toContain('boom');
  });

  it('leaves what it logs untouched (the caller keeps its object)', () => {
    const { logger } = capturedLogger();
    const fields = { token: 'still-here', nested: { secret: 'also-here' } };
    logger.info(fields, 'line');
    expect(fields).toEqual({ token: 'still-here', nested: { secret: 'also-here' } });
  });

  it('never writes the hook token, a body or a payload value of a webhook request, whatever its outcome', async () => {
    const app = await testApp({
      hooks: {
        mappings: [
          // the cast fails on the payload's value: JSONata's message quotes it
          { id: 'casts', match: { path: 'casts' }, action: 'wake', textTemplate: 'n = {{ $number(payload.value) }}' },
          { id: 'fine', match: { path: 'fine' }, action: 'wake', textTemplate: 'got {{ payload.value }}' },
        ],
      },
    });
    const body = JSON.stringify({ value: 'BODY-MARKER-payload-value', text: 'BODY-MARKER-text' });
    const post = (path: string, headers: Record<string, string>) =>
      app.request(path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
    const statuses = [
      (await post('/hooks/wake', { authorization: `Bearer ${HOOK_TOKEN}` })).status,
      (await post('/hooks/fine', { 'x-gateway-token': HOOK_TOKEN })).status,
      (await post('/hooks/casts', { authorization: `Bearer ${HOOK_TOKEN}` })).status,
      (await post(`/hooks/wake?token=${HOOK_TOKEN}`, {})).status,
      (await post('/hooks/wake', { authorization: 'Bearer WRONG-TOKEN-MARKER' })).status,
      (await post('/hooks/nowhere', { authorization: `Bearer ${HOOK_TOKEN}` })).status,
    ];
    expect(statuses).toEqual([200, 200, 500, 200, 401, 404]);
    const text = JSON.stringify(app.logs);
    // the lines were written: the access lines, the mapping failure, the deprecated query token, the failed auth
    expect(text).toContain('hook mapping failed');
    expect(text).toContain('deprecated');
    expect(text).toContain('authentication failed');
    expect(text).not.toContain(HOOK_TOKEN);
    expect(text).not.toContain('WRONG-TOKEN-MARKER');
    expect(text).not.toContain('BODY-MARKER');
  });
});
