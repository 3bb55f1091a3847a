import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfigValue } from '../helpers/builtins.js';
import { configFaults } from '../helpers/config-faults.js';
import { tempDir } from '../helpers/start-herald.js';

async function load(schedules: unknown) {
  return loadConfigValue({ schedules }, path.join(tempDir(), 'herald.json'), { env: {} });
}

function faultsOf(schedules: unknown): Promise<string[]> {
  return configFaults(load(schedules));
}

const event = { sessionTarget: 'main', payload: { kind: 'systemEvent', text: 'check the alerts' } };
const turn = { sessionTarget: 'isolated', payload: { kind: 'agentTurn', message: 'summarise the night' } };

describe('schedules in the config', () => {
  it('loads the three schedule kinds in OpenClaw\'s shape, with their defaults', async () => {
    const { config } = await load({
      jobs: [
        { id: 'morning', schedule: { kind: 'cron', expr: '0 7 * * *', tz: 'Europe/Berlin' }, ...turn, delivery: { mode: 'announce', channel: 'last' } },
        { id: 'remind', schedule: { kind: 'at', at: '20m' }, ...event, deleteAfterRun: true },
        { id: 'payments', schedule: { kind: 'every', every: '15m' }, ...turn, sessionKey: 'payments' },
        { id: 'exact', schedule: { kind: 'at', at: '2030-01-05T07:00:00+01:00' }, ...event },
      ],
    });
    expect(config.schedules.minEvery).toBe('10s');
    expect(config.schedules.jobs[0]).toMatchObject({ enabled: true, catchUp: true, overlap: 'skip', jitter: '0', wakeMode: 'now', deleteAfterRun: false });
    expect(config.schedules.jobs[1]).toMatchObject({ deleteAfterRun: true, delivery: { mode: 'announce' } });
  });

  it('refuses bad input, naming the field and why', async () => {
    const faults = await faultsOf({
      jobs: [
        { id: 'a', schedule: { kind: 'every', every: '1m' }, ...turn },
        { id: 'b', schedule: { kind: 'cron', expr: '0 7 * *', tz: 'Europe/Berlin' }, ...turn },
        { id: 'c', schedule: { kind: 'cron', expr: '0 7 * * *', tz: 'Mars/Olympus' }, ...turn },
        { id: 'd', schedule: { kind: 'at', at: 'tomorrow' }, ...event },
        { id: 'e', schedule: { kind: 'every', every: '1m' }, sessionTarget: 'main', payload: turn.payload },
        // croner reads a seventh field (years); herald's grammar has five or six
        { id: 'f', schedule: { kind: 'cron', expr: '0 0 7 * * * 2030' }, ...turn },
        // a step without a range, as croner 9 took it: a job stored then still loads
        { id: 'g', schedule: { kind: 'cron', expr: '5/15 * * * *' }, ...turn },
      ],
    });
    const text = faults.join('\n');
    expect(text).toContain('schedules.jobs[1].schedule.expr');
    expect(text).toMatch(/exactly five or six/);
    expect(text).toContain('schedules.jobs[2].schedule.tz');
    expect(text).toContain('schedules.jobs[3].schedule.at');
    expect(text).toContain('schedules.jobs[4].payload.kind');
    expect(text).toMatch(/schedules\.jobs\[5\]\.schedule\.expr: invalid configuration format .*exactly five or six/);
    expect(text).not.toContain('schedules.jobs[0]');
    expect(text).not.toContain('schedules.jobs[6]');
  });

  it('refuses an every below schedules.minEvery, an unknown agent and a duplicate id', async () => {
    const faults = await faultsOf({
      minEvery: '1m',
      jobs: [
        { id: 'a', schedule: { kind: 'every', every: '30s' }, ...turn },
        { id: 'a', schedule: { kind: 'every', every: '2m' }, sessionTarget: 'isolated', payload: { kind: 'agentTurn', message: 'm', agentId: 'nobody' } },
      ],
    });
    const text = faults.join('\n');
    expect(text).toContain('schedules.jobs[0].schedule.every: 30s is shorter than schedules.minEvery');
    expect(text).toContain('schedules.jobs[1].id: duplicate job id "a"');
    expect(text).toContain('schedules.jobs[1].payload.agentId: unknown agent "nobody"');
  });
});
