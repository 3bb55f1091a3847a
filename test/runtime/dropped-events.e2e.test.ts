import { afterEach, describe, expect, it } from 'vitest';
import { eventually, GATEWAY_TOKEN, HOOK_TOKEN } from '../helpers/start-herald.js';
import { testApp, type TestApp } from '../http/app-fixture.js';

let herald: TestApp | undefined;
afterEach(async () => herald?.stop());

describe('events dropped by the main session cap', () => {
  it('are counted in /metrics and the admin events view, and logged once per burst', async () => {
    herald = await testApp({});
    const wake = (text: string) =>
      herald!.request(`/hooks/wake`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${HOOK_TOKEN}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ text, mode: 'next-heartbeat' }),
      });
    // 25 distinct events with no heartbeat to take them: the 5 oldest are dropped, every sender gets 200
    for (let i = 1; i <= 25; i++) expect((await wake(`deploy ${i} finished`)).status).toBe(200);

    const admin = { Authorization: `Bearer ${GATEWAY_TOKEN}` };
    const events = (await (await herald.request(`/admin/events?session=main`, { headers: admin })).json()) as { data: { status: string }[]; dropped: number };
    expect(events.dropped).toBe(5);
    expect(events.data.filter((e) => e.status === 'dropped')).toHaveLength(5);
    expect(await (await herald.request(`/metrics`, { headers: admin })).text()).toMatch(/^herald_events_dropped 5$/m);

    const over = await eventually(() => herald!.logs.find((l) => l.msg === 'main session drop burst over'));
    expect(over).toMatchObject({ dropped: 5 });
    const warnings = herald.logs.filter((l) => String(l.msg).startsWith('main session queue full'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ level: 40, maxPending: 20 });

    // a later burst is a new warning
    for (let i = 26; i <= 28; i++) await wake(`deploy ${i} finished`);
    await eventually(() => herald!.logs.filter((l) => l.msg === 'main session drop burst over').length === 2);
    expect(herald.logs.filter((l) => String(l.msg).startsWith('main session queue full'))).toHaveLength(2);
  });
});
