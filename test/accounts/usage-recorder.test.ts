import { describe, expect, it } from 'vitest';
import { UsageRecorder } from '../../src/accounts/usage-recorder.js';
import type { UsageEntry, UsageRepo } from '../../src/store/port.js';
import { coreConfigSchema } from '../../src/config/schema.js';

/** a store that writes the calls of one tick together, as the SQLite adapter does, and fails the writes it is told to */
function gatheringRepo(fail: boolean) {
  const written: UsageEntry[][] = [];
  let open: { entries: UsageEntry[]; write: Promise<void> } | undefined;
  const repo = {
    record(entries: UsageEntry[]) {
      if (open) {
        open.entries.push(...entries);
        return open.write;
      }
      const batch = { entries: [...entries], write: Promise.resolve() };
      open = batch;
      batch.write = new Promise<void>((resolve, reject) =>
        setImmediate(() => {
          open = undefined;
          written.push(batch.entries);
          if (fail) reject(new Error('disk full'));
          else resolve();
        }),
      );
      return batch.write;
    },
  } as unknown as UsageRepo;
  return { repo, written };
}

const config = coreConfigSchema.parse({}) as never;
const call = (n: number) => ({ source: 'run' as const, model: 'embedded/echo', agentId: 'main', promptTokens: n, completionTokens: 1, estimated: true });

describe('UsageRecorder', () => {
  it('lets the calls of one write share it: settled once, a failure logged once with how many calls it carried', async () => {
    const { repo, written } = gatheringRepo(true);
    const warnings: unknown[][] = [];
    const recorder = new UsageRecorder(repo, config, { warn: (...args: unknown[]) => warnings.push(args) } as never);
    recorder.record(call(1));
    recorder.record(call(2));
    recorder.record(call(3));
    await recorder.settled();
    expect(written.map((batch) => batch.map((e) => e.promptTokens))).toEqual([[1, 2, 3]]);
    expect(warnings).toEqual([[{ err: 'disk full', calls: 3 }, 'usage: recording failed; these calls are not counted']]);
    // a later call starts a write of its own, counted apart
    recorder.record(call(4));
    await recorder.settled();
    expect(warnings.at(-1)).toEqual([{ err: 'disk full', calls: 1 }, 'usage: recording failed; these calls are not counted']);
  });

  it('settles only once every call recorded so far is written', async () => {
    const { repo, written } = gatheringRepo(false);
    const recorder = new UsageRecorder(repo, config, { warn: () => {} } as never);
    recorder.record(call(1));
    recorder.record(call(2));
    await recorder.settled();
    expect(written.flat().length).toBe(2);
  });
});
