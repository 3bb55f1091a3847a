import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { jobFromFlags } from '../../../src/cli/admin/cron.js';
import { main } from '../../helpers/builtins.js';
import { baseConfig, tempDir } from '../../helpers/start-herald.js';
import { captureIo } from '../capture-io.js';
import { killLeftOver, spawnHerald, type SpawnedHerald } from '../spawn-herald.js';

let spawned: SpawnedHerald | undefined;
afterEach(async () => {
  await killLeftOver(spawned);
  spawned = undefined;
});

describe('herald cron', () => {
  it("makes OpenClaw's flags into a job", () => {
    expect(jobFromFlags({ name: 'Morning brief', cron: '0 7 * * *', tz: 'Europe/Berlin', message: 'Summarise', announce: true, channel: 'slack', to: '#ops' })).toMatchObject({
      id: expect.stringMatching(/^morning-brief-[0-9a-f]{6}$/),
      name: 'Morning brief',
      schedule: { kind: 'cron', expr: '0 7 * * *', tz: 'Europe/Berlin' },
      sessionTarget: 'isolated',
      payload: { kind: 'agentTurn', message: 'Summarise' },
      delivery: { mode: 'announce', channel: 'slack', to: '#ops' },
    });
    expect(jobFromFlags({ id: 'r', at: '20m', 'system-event': 'call back', wake: 'next-heartbeat', 'delete-after-run': true })).toEqual({
      id: 'r',
      schedule: { kind: 'at', at: '20m' },
      sessionTarget: 'main',
      payload: { kind: 'systemEvent', text: 'call back' },
      wakeMode: 'next-heartbeat',
      deleteAfterRun: true,
    });
    expect(jobFromFlags({ every: '1h', cron: '* * * * *', message: 'x' })).toMatch(/one of --at, --every or --cron/);
    expect(jobFromFlags({ every: '1h' })).toMatch(/--system-event or --message/);
  });

  // the spawn pays for tsx and the plugin imports: a generous limit, no timing assertions
  it('adds, lists, shows, runs, disables, enables and removes a job on a spawned `herald serve`', { timeout: 90_000 }, async () => {
    const dir = tempDir();
    const file = path.join(dir, 'herald.json');
    fs.writeFileSync(file, JSON.stringify(baseConfig({ storage: { sqlite: './data/herald.db' } })));
    spawned = spawnHerald(['serve', '--config', file, '--port', '0']);
    const url = (await spawned.waitFor(/herald listening on (http:\/\/\S+)/))[1]!;
    const cron = async (...args: string[]) => {
      const io = captureIo();
      const code = await main(['cron', ...args, '--config', file, '--url', url], io.io);
      return { code, out: io.out(), err: io.err() };
    };

    const added = await cron('add', '--id', 'payments', '--name', 'Payments', '--every', '1h', '--message', 'Look at the failed payments');
    expect(added).toMatchObject({ code: 0, out: expect.stringMatching(/^added payments\npayments +enabled +api +next \S+ +every 1h +Payments/) });
    // a header row, then one row per schedule in the same columns
    const [header, first] = (await cron('list')).out.trimEnd().split('\n');
    expect(header).toMatch(/^ID +STATUS +ORIGIN +NEXT +WHEN +NAME$/);
    expect(first!.split(/ {2,}/)).toEqual(['payments', 'enabled', 'api', expect.stringMatching(/^\d{4}-/), 'every 1h', 'Payments']);
    expect(first!.indexOf('enabled')).toBe(header!.indexOf('STATUS'));
    expect(JSON.parse((await cron('show', 'payments', '--json')).out)).toMatchObject({ id: 'payments', job: { payload: { kind: 'agentTurn' }, delivery: { mode: 'none' } } });
    // a job is named by its name too, when one job has it: `add --name` makes an id no one remembers
    const named = await cron('add', '--name', 'Tick', '--every', '1h', '--message', 'tick');
    const tickId = named.out.match(/^added (tick-[0-9a-f]{6})\n/)![1]!;
    expect((await cron('disable', 'Tick')).out).toMatch(new RegExp(`^${tickId} +disabled`));
    expect((await cron('run', 'Tick')).out).toMatch(/dispatched {2}run \S+ /);
    const twin = (await cron('add', '--name', 'Tick', '--every', '1h', '--message', 'tock')).out.match(/^added (tick-[0-9a-f]{6})/)![1]!;
    const ambiguous = await cron('run', 'Tick');
    expect(ambiguous.code).toBe(1);
    expect(ambiguous.err).toContain(`2 jobs are named "Tick" (${[tickId, twin].sort().join(', ')}): give one id`);
    await cron('rm', tickId);
    await cron('rm', twin);

    const ran = await cron('run', 'payments');
    expect(ran).toMatchObject({ code: 0, out: expect.stringMatching(/dispatched {2}run \S+ /) });
    expect((await cron('runs', 'payments')).out).toMatch(/run now/);
    expect((await cron('disable', 'payments')).out).toMatch(/disabled/);
    expect((await cron('enable', 'payments')).out).toMatch(/payments +enabled/);
    expect(await cron('rm', 'payments')).toMatchObject({ code: 0, out: 'deleted payments\n' });
    expect(await cron('show', 'payments')).toMatchObject({ code: 1, err: expect.stringMatching(/404 no schedule "payments"/) });

    const bad = await cron('add', '--cron', '61 * * * *', '--system-event', 'x');
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/400 schedule\.expr/);
    expect((await cron('list')).out).toBe('no schedules\n');
  });
});
