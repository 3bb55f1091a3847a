import path from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { resumeAfterCrash } from '../../src/runtime/resume-after-crash.js';
import type { Store } from '../../src/store/port.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { tempDir } from '../helpers/start-herald.js';

const opened: Store[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.close()));
});

describe('resumeAfterCrash on SQLite', () => {
  it("takes back the dead process's claimed main-session events and deliveries at once, as its runs, and removes its half-written documents", async () => {
    const file = path.join(tempDir(), 'herald.db');
    const dead = openSqliteStore(file);
    const now = Date.now();
    const hour = now + 3_600_000;
    for (let i = 0; i < 20; i++) await dead.events.enqueue('main', `event ${i}`, 20);
    expect(await dead.events.claimPending('main', { owner: 'dead', now, until: hour }, 20)).toHaveLength(20);
    await dead.deliveries.insert({
      id: 'd1', runId: 'run-1', kind: 'run', channel: 'telegram', to: '555', text: 'hi', sessionKey: 'hook:x', agentId: 'main',
      status: 'pending', attempts: 0, partsSent: 0, lastError: null, nextAttemptAt: now, leaseOwner: null, leaseUntil: null, createdAt: now, updatedAt: now, deliveredAt: null,
    });
    expect(await dead.deliveries.claim('d1', 'dead', now, hour)).toBeDefined();
    // a knowledge document whose chunks it was writing
    dead.db.prepare("INSERT INTO knowledge_documents (id, agent_id, filename, bytes, mime_type, sha256, status, chunk_count, metadata, created_at) VALUES ('doc_cut', 'main', 'cut.txt', 1, 'text/plain', 'cut', 'indexing', 0, NULL, 0)").run();
    // the process is gone: its serving lock with it
    await dead.close();

    const store = openSqliteStore(file);
    opened.push(store);
    const lines: Record<string, unknown>[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) });
    await resumeAfterCrash(store, logger);
    // what the start looks at: pending events ask for a heartbeat, due deliveries are sent
    expect(await store.events.countPending('main')).toBe(20);
    expect(await store.deliveries.due(Date.now(), 10)).toEqual(['d1']);
    expect(Date.now()).toBeLessThan(hour);
    expect(await store.knowledge.removeUnfinished()).toBe(0);
    expect(lines.find((l) => l.msg === 'took back what the previous process left in progress')).toMatchObject({ events: 20, deliveries: 1, halfWrittenDocuments: 1 });
  });
});
