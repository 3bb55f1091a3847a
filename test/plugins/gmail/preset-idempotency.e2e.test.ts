import { afterEach, describe, expect, it } from 'vitest';
import { hookHeaders } from '../../helpers/start-herald.js';
import { testApp, type TestApp } from '../../http/app-fixture.js';
import { sqliteDb } from '../../helpers/sqlite-db.js';

let herald: TestApp | undefined;
afterEach(async () => {
  await herald?.stop();
  herald = undefined;
});

async function post(body: unknown, headers: Record<string, string> = {}) {
  const res = await herald!.request(`/hooks/gmail`, { method: 'POST', headers: { ...hookHeaders(), ...headers }, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown>, replayed: res.headers.get('idempotent-replayed') };
}

const runs = () => (sqliteDb(herald!.gateway.store).prepare('SELECT count(*) AS n FROM runs').get() as { n: number }).n;
const mail = (id: string, labels: string[] = ['INBOX']) => ({
  source: 'gmail',
  account: 'Ada@Example.com',
  historyId: '100',
  messages: [{ id, threadId: id, from: 'bob@example.com', subject: 'Hi', snippet: 'snip', body: 'Body', labels }],
});

describe('the gmail preset idempotencyKey', () => {
  it('takes a message once without the header, under the key the watcher sends', async () => {
    herald = await testApp({ hooks: { presets: ['gmail'] } });
    const first = await post(mail('m-1'));
    expect(first).toMatchObject({ status: 202, replayed: null });
    // posted again (a relay's retry), its labels changed meanwhile: still the same message
    expect(await post(mail('m-1', ['INBOX', 'UNREAD']))).toMatchObject({ status: 202, body: first.body, replayed: 'true' });
    expect(await post(mail('m-2'))).toMatchObject({ status: 202, replayed: null });
    expect(runs()).toBe(2);

    // the watcher's header names the same key (account in lower case): the message is not taken twice
    expect(await post(mail('m-1'), { 'idempotency-key': 'gmail:ada@example.com:m-1' })).toMatchObject({ status: 202, body: first.body, replayed: 'true' });
    expect(runs()).toBe(2);
  });
});
