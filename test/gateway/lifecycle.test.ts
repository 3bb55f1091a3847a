import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { Lifecycle, PartStartError, type Part } from '../../src/gateway/lifecycle.js';

const silent = pino({ level: 'silent' });

/** parts that write what they do into `seen` */
function parts(names: string[], seen: string[], failing?: { start?: string; stop?: string }): Part[] {
  return names.map((name) => ({
    name,
    start: async () => {
      if (failing?.start === name) throw new Error('port in use');
      seen.push(`start ${name}`);
    },
    stop: async ({ graceMs }) => {
      seen.push(`stop ${name} ${graceMs}`);
      if (failing?.stop === name) throw new Error('stuck');
    },
  }));
}

describe('the gateway lifecycle', () => {
  it('starts the parts in order and stops them in the reverse, handing each the grace period', async () => {
    const seen: string[] = [];
    const lifecycle = new Lifecycle(parts(['store', 'runs', 'schedules'], seen), silent);
    await lifecycle.start();
    await lifecycle.stop({ graceMs: 5 });
    expect(seen).toEqual(['start store', 'start runs', 'start schedules', 'stop schedules 5', 'stop runs 5', 'stop store 5']);
  });

  it('a part that fails to start stops the ones started before it, and its error names it', async () => {
    const seen: string[] = [];
    const lifecycle = new Lifecycle(parts(['store', 'runs', 'schedules'], seen, { start: 'runs' }), silent);
    const error = await lifecycle.start().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PartStartError);
    expect((error as PartStartError).part).toBe('runs');
    expect((error as Error).message).toBe('runs failed to start: port in use');
    expect(seen).toEqual(['start store', 'stop store 0']);
  });

  it('a part whose stop fails does not keep the others running: all are stopped, then the failure is thrown', async () => {
    const seen: string[] = [];
    const lifecycle = new Lifecycle(parts(['store', 'runs', 'schedules'], seen, { stop: 'runs' }), silent);
    await lifecycle.start();
    await expect(lifecycle.stop({ graceMs: 1 })).rejects.toThrow('stuck');
    expect(seen.filter((s) => s.startsWith('stop'))).toEqual(['stop schedules 1', 'stop runs 1', 'stop store 1']);
  });

  it('stopping twice stops nothing the second time', async () => {
    const seen: string[] = [];
    const lifecycle = new Lifecycle(parts(['store'], seen), silent);
    await lifecycle.start();
    await lifecycle.stop({ graceMs: 0 });
    await lifecycle.stop({ graceMs: 0 });
    expect(seen).toEqual(['start store', 'stop store 0']);
  });
});
