import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { discordChannel } from '../../plugins/discord/channel.js';
import { msteamsChannel } from '../../plugins/msteams/channel.js';
import { ChannelError } from '../../src/plugin-sdk/sdk.js';
import { pathSegment } from '../../src/plugin-sdk/channel-http.js';
import { hookHeaders } from '../helpers/start-herald.js';
import { testApp, type TestApp } from '../http/app-fixture.js';

let herald: TestApp;
beforeAll(async () => {
  herald = await testApp({ hooks: { mappings: [{ id: 'notify', match: { path: 'notify' }, messageTemplate: 'x', channel: 'discord', to: '{{room}}' }] } },
  );
});
afterAll(async () => herald?.stop());

const agent = (body: Record<string, unknown>, path = '/hooks/agent') =>
  herald.request(`${path}`, { method: 'POST', headers: hookHeaders(), body: JSON.stringify(body) }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));

describe('a channel recipient', () => {
  it('is checked per channel when the hook is accepted: 400 naming `to`', async () => {
    for (const [channel, to] of [
      ['discord', '..'],
      ['discord', '.'],
      ['discord', 'general'],
      ['msteams', 'a/b'],
      ['telegram', '12ab'],
      ['whatsapp', 'not-a-number'],
      ['last', '..'],
      ['slack', 'C01\u0000x'],
    ]) {
      const res = await agent({ message: 'hi', channel, to });
      expect(res.status, `${channel} ${JSON.stringify(to)}`).toBe(400);
      expect(res.body.error).toMatch(/^to /);
    }
    expect((await agent({ room: '..' }, '/hooks/notify')).status).toBe(400);
    for (const [channel, to] of [
      ['discord', '1234567890123456789'],
      ['msteams', '19:abc123@thread.tacv2'],
      ['telegram', '-1001234567890'],
      ['telegram', '@herald_news'],
      ['whatsapp', '+4915112345678'],
      ['slack', 'C0123456789'],
      ['last', 'anyone'],
    ]) {
      expect((await agent({ message: 'hi', channel, to, deliver: false })).status, `${channel} ${to}`).toBe(202);
    }
  });

  it('never leaves its path segment in a platform URL, even when it got past the accept check', async () => {
    const requests: string[] = [];
    const fake = http.createServer((req, res) => {
      requests.push(req.url ?? '');
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"id":"1","access_token":"t","expires_in":3600}');
    });
    await new Promise<void>((r) => fake.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(fake.address() as { port: number }).port}`;
    try {
      const message = (to: string) => ({ to, text: 'hi', deliveryId: 'd1', runId: null, sessionKey: 'main', agentId: 'main', createdAt: new Date().toISOString(), signal: new AbortController().signal });
      const discord = discordChannel({ botToken: 'bot-token', baseUrl: `${base}/api/v10`, allowedMentions: { parse: [] } });
      const teams = msteamsChannel({ appId: 'app', appPassword: 'pw', tokenUrl: `${base}/token`, serviceUrl: `${base}/teams`, scope: 's' } as never);
      for (const to of ['..', '.', '%2e%2E']) {
        await expect(discord.send(message(to))).rejects.toBeInstanceOf(ChannelError);
        await expect(teams.send(message(to))).rejects.toMatchObject({ retryable: false });
      }
      expect(requests.filter((u) => !u.startsWith('/token'))).toEqual([]);
      await discord.send(message('a/b?c#d'));
      expect(requests.at(-1)).toBe('/api/v10/channels/a%2Fb%3Fc%23d/messages');
      expect(pathSegment('19:abc@thread.tacv2')).toBe('19%3Aabc%40thread.tacv2');
    } finally {
      fake.close();
    }
  });
});
