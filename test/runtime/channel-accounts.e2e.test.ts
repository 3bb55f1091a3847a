import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeServer, type FakeServer, type RecordedRequest } from '../helpers/fake-server.js';
import { loadConfigValue } from '../helpers/builtins.js';
import { GATEWAY_TOKEN, baseConfig, eventually, hookHeaders, tempDir } from '../helpers/start-herald.js';
import { testApp, type TestApp } from '../http/app-fixture.js';
import { ConfigError } from '../../src/errors.js';

/**
 * OpenClaw's several accounts per channel (`channels.<id>.accounts.<accountId>`, docs
 * gateway/config-channels/shared-policies.md "Multi-account"): each account its own bot, the
 * top-level keys shared, `accountId` on a direct /hooks/agent request picking the account that
 * sends the reply. The fakes answer as the platforms document (Telegram's token in the path,
 * https://core.telegram.org/bots/api#making-requests; Slack's in the Authorization header,
 * https://api.slack.com/web#authentication).
 */
const TELEGRAM_MAIN = '111111:main-bot-secret';
const TELEGRAM_ALERTS = '222222:alerts-bot-secret';
const SLACK_WORK = 'xoxb-work-secret';
const SLACK_HOME = 'xoxb-home-secret';
const fast = { delivery: { baseDelayMs: 10, maxDelayMs: 50, maxAttempts: 50 } };

let herald: TestApp | undefined;
let platform: FakeServer | undefined;
afterEach(async () => {
  await herald?.stop();
  herald = undefined;
  await platform?.close();
  platform = undefined;
});

const isTelegram = (r: RecordedRequest) => r.path.endsWith('/sendMessage');
const isSlack = (r: RecordedRequest) => r.path === '/chat.postMessage';
/** which Telegram bot sent it: the token is a path step (`/bot<token>/sendMessage`) */
const telegramBot = (r: RecordedRequest) => decodeURIComponent(r.path.split('/')[1]!.slice('bot'.length));

function channels(url: string) {
  return {
    // the top-level baseUrl is shared; each account brings its own bot token
    telegram: { baseUrl: url, accounts: { default: { botToken: TELEGRAM_MAIN }, alerts: { botToken: TELEGRAM_ALERTS } } },
    // no `default` account: defaultAccount names the one used when a request names none
    slack: { baseUrl: url, defaultAccount: 'home', accounts: { work: { botToken: SLACK_WORK }, home: { botToken: SLACK_HOME } } },
    // a channel without accounts is one account, `default`
    discord: { botToken: 'discord-secret', baseUrl: url },
  };
}

async function post(body: Record<string, unknown>): Promise<{ status: number; body: Record<string, any> }> {
  const res = await herald!.request(`/hooks/agent`, { method: 'POST', headers: hookHeaders(), body: JSON.stringify({ wakeMode: 'next-heartbeat', ...body }) });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

async function admin(p: string): Promise<any> {
  return (await herald!.request(`/admin${p}`, { headers: { authorization: `Bearer ${GATEWAY_TOKEN}` } })).json();
}

function delivered(runId: string) {
  return eventually(async () => {
    const run = await admin(`/runs/${runId}`);
    return run.delivery?.status === 'delivered' && run;
  });
}

describe('several accounts per channel', () => {
  it("sends each reply through the account its request named, the channel's default account otherwise", async () => {
    platform = await startFakeServer((r) => (isSlack(r) ? { body: { ok: true, channel: 'C1', ts: '1.2' } } : isTelegram(r) ? { body: { ok: true, result: { message_id: 1 } } } : { body: { id: '1' } }));
    herald = await testApp({ ...fast, channels: channels(platform.url) });

    const alerts = await post({ message: 'page the on-call', channel: 'telegram', to: '-100200', accountId: 'alerts' });
    expect(alerts.status).toBe(202);
    const plain = await post({ message: 'daily digest', channel: 'telegram', to: '-100200' });
    const work = await post({ message: 'standup', channel: 'slack', to: 'C1', accountId: 'work' });
    const home = await post({ message: 'groceries', channel: 'slack', to: 'C1' });
    const single = await post({ message: 'deploy', channel: 'discord', to: '123456789012345678', accountId: 'default' });
    for (const accepted of [alerts, plain, work, home, single]) await delivered(accepted.body.runId);

    const telegram = platform.requests.filter(isTelegram);
    expect(telegram.map(telegramBot).sort()).toEqual([TELEGRAM_MAIN, TELEGRAM_ALERTS].sort());
    expect(telegram.find((r) => telegramBot(r) === TELEGRAM_ALERTS)!.json.text).toBe((await admin(`/runs/${alerts.body.runId}`)).reply);
    const slack = platform.requests.filter(isSlack);
    expect(slack.map((r) => r.headers.authorization).sort()).toEqual([`Bearer ${SLACK_HOME}`, `Bearer ${SLACK_WORK}`]);
    expect(slack.find((r) => r.headers.authorization === `Bearer ${SLACK_WORK}`)!.json.text).toBe((await admin(`/runs/${work.body.runId}`)).reply);
    // the account is kept with the run's action
    expect((await admin(`/runs/${alerts.body.runId}`)).action).toMatchObject({ channel: 'telegram', accountId: 'alerts' });
    expect(herald.rawLogs()).not.toContain(TELEGRAM_ALERTS);
  });

  it('refuses an account the channel does not have (400 naming it), an accountId without a channel, and a malformed one', async () => {
    platform = await startFakeServer(() => ({ body: { ok: true } }));
    herald = await testApp({ channels: channels(platform.url) });
    expect(await post({ message: 'x', channel: 'telegram', to: '-100200', accountId: 'nope' })).toEqual({
      status: 400,
      body: { ok: false, error: 'accountId "nope" is not an account of channel telegram (its accounts: default, alerts)' },
    });
    expect(await post({ message: 'x', channel: 'discord', to: '123456789012345678', accountId: 'work' })).toEqual({
      status: 400,
      body: { ok: false, error: 'accountId "work" is not an account of channel discord (its accounts: default)' },
    });
    expect(await post({ message: 'x', to: '-100200', accountId: 'alerts' })).toEqual({
      status: 400,
      body: { ok: false, error: "accountId needs an explicit channel: an account is one of a channel's (channels.<id>.accounts)" },
    });
    expect((await post({ message: 'x', channel: 'telegram', to: '-100200', accountId: '../x' })).status).toBe(400);
    expect(platform.requests).toHaveLength(0);
  });

  it('retries through the same account after a restart', async () => {
    let down = true;
    platform = await startFakeServer((r) => (down ? { status: 502, body: { ok: false, error_code: 502, description: 'Bad Gateway' } } : isTelegram(r) ? { body: { ok: true, result: { message_id: 7 } } } : { body: {} }));
    herald = await testApp({ ...fast, channels: channels(platform.url) });
    const accepted = await post({ message: 'page the on-call', channel: 'telegram', to: '-100200', accountId: 'alerts' });
    await eventually(async () => (await admin(`/runs/${accepted.body.runId}`)).delivery?.attempts >= 1);
    await herald.stop();
    down = false;
    herald = await herald.restart();
    const run = await delivered(accepted.body.runId);
    expect(run.delivery.attempts).toBeGreaterThan(1);
    const sent = platform.requests.filter(isTelegram);
    expect(new Set(sent.map(telegramBot))).toEqual(new Set([TELEGRAM_ALERTS]));
  });
});

describe('several accounts after a config reload', () => {
  it('takes an account added to the config at once, and refuses one taken away', async () => {
    platform = await startFakeServer(() => ({ body: { ok: true, result: { message_id: 1 } } }));
    const config = (accounts: Record<string, unknown>) => baseConfig({ ...fast, channels: { telegram: { baseUrl: platform!.url, accounts } } });
    herald = await testApp(config({ default: { botToken: TELEGRAM_MAIN } }));
    expect((await post({ message: 'x', channel: 'telegram', to: '-100200', accountId: 'alerts' })).status).toBe(400);
    fs.writeFileSync(herald.configFile, JSON.stringify(config({ default: { botToken: TELEGRAM_MAIN }, alerts: { name: 'Alerts bot', botToken: TELEGRAM_ALERTS } })));
    expect(await herald.gateway.reload('test')).toMatchObject({ ok: true });
    const accepted = await post({ message: 'page the on-call', channel: 'telegram', to: '-100200', accountId: 'alerts' });
    expect(accepted.status).toBe(202);
    await delivered(accepted.body.runId);
    expect(platform.requests.filter(isTelegram).map(telegramBot)).toEqual([TELEGRAM_ALERTS]);
    fs.writeFileSync(herald.configFile, JSON.stringify(config({ default: { botToken: TELEGRAM_MAIN } })));
    expect(await herald.gateway.reload('test')).toMatchObject({ ok: true });
    expect((await post({ message: 'x', channel: 'telegram', to: '-100200', accountId: 'alerts' })).body).toEqual({
      ok: false,
      error: 'accountId "alerts" is not an account of channel telegram (its accounts: default)',
    });
  });
});

describe('the accounts in the config', () => {
  const load = (telegram: unknown) => loadConfigValue(baseConfig({ channels: { telegram } }), path.join(tempDir(), 'herald.json'));
  const faults = async (telegram: unknown) => {
    const error = await load(telegram).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).faults.join('\n');
  };

  it('checks each account merged over the top-level keys, and defaultAccount against the accounts', async () => {
    expect(await faults({ accounts: { alerts: {} } })).toMatch(/channels\.telegram\.accounts\.alerts\.botToken/);
    expect(await faults({ accounts: { alerts: { botToken: 'a:b', chatty: true } } })).toMatch(/channels\.telegram\.accounts\.alerts.*chatty/);
    expect(await faults({ botToken: 'a:b', defaultAccount: 'x', accounts: { alerts: {} } })).toMatch(/channels\.telegram\.defaultAccount: "x" is not one of accounts \(alerts\)/);
    expect(await faults({})).toMatch(/channels\.telegram\.botToken/);
    // a top-level token is inherited by every account that names none
    await expect(load({ botToken: 'a:b', accounts: { alerts: {}, work: { botToken: 'c:d' } } })).resolves.toBeDefined();
  });
});
