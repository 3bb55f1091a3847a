import { describe, expect, it } from 'vitest';
import type { OpenStore } from './open-store-under-test.js';

/**
 * Whether a process may serve the database alone: SQLite (one process per file) says so to the
 * first handle that asks, until it closes; PostgreSQL (replicas sharing a schema) never does.
 */
export function servingCases(open: OpenStore, options: { alone: boolean }) {
  describe('serving alone', () => {
    if (options.alone) {
      it('lets the first handle that asks serve the database alone, until it closes', async () => {
        const first = await open();
        const second = await open(first);
        expect(await first.serveAlone()).toBe(true);
        // asked again by its holder: still its own
        expect(await first.serveAlone()).toBe(true);
        expect(await second.serveAlone()).toBe(false);
        await first.close();
        expect(await second.serveAlone()).toBe(true);
        const third = await open(second);
        expect(await third.serveAlone()).toBe(false);
      });
    } else {
      it('never serves alone: replicas share the database and leases decide', async () => {
        const first = await open();
        expect(await first.serveAlone()).toBe(false);
        expect(await (await open(first)).serveAlone()).toBe(false);
      });
    }
  });
}
