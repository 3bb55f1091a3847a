import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { killLeftOver, spawnHerald, type SpawnedHerald } from '../../cli/spawn-herald.js';
import { dropSchema, PG_URL, requirePostgres, uniqueSchema } from '../../helpers/postgres.js';
import { baseConfig, eventually, tempDir } from '../../helpers/start-herald.js';

let spawned: SpawnedHerald | undefined;
let backend: Backend | undefined;
afterEach(async () => {
  await killLeftOver(spawned);
  spawned = undefined;
  await backend?.close();
  backend = undefined;
});

/** where the herald under test stores, and the rows it left there, read beside (or after) it */
interface Backend {
  storage: Record<string, unknown>;
  rows<T>(sql: string): Promise<T[]>;
  close(): Promise<void>;
}

function sqliteBackend(): Backend {
  const file = path.join(tempDir(), 'herald.db');
  return {
    storage: { sqlite: file },
    async rows<T>(sql: string) {
      const db = new Database(file, { readonly: true });
      try {
        return db.prepare(sql).all() as T[];
      } finally {
        db.close();
      }
    },
    async close() {},
  };
}

async function postgresBackend(): Promise<Backend> {
  await requirePostgres();
  const schema = uniqueSchema('herald_main_fires');
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  return {
    storage: { postgres: { url: PG_URL, schema } },
    async rows<T>(sql: string) {
      await client.query(`SET search_path TO ${schema}`);
      return (await client.query(sql)).rows as T[];
    },
    async close() {
      await client.end();
      await dropSchema(schema);
    },
  };
}

interface Fire {
  schedule_id: string;
  due_at: number;
  outcome: string;
  detail: string | null;
}

/** the fires and the main session's events as stored (PostgreSQL's bigints read as numbers) */
async function stored(backend: Backend): Promise<{ fires: Fire[]; events: { id: number; text: string }[] }> {
  const fires = await backend.rows<Fire>('SELECT schedule_id, due_at, outcome, detail FROM schedule_fires ORDER BY schedule_id, due_at');
  const events = await backend.rows<{ id: number; text: string }>("SELECT id, text FROM events WHERE session = 'main'");
  return { fires: fires.map((f) => ({ ...f, due_at: Number(f.due_at) })), events: events.map((e) => ({ ...e, id: Number(e.id) })) };
}

/** the event a fire's detail names (after the claim's own detail, e.g. "caught up at start; event 12") */
const eventOf = (fire: Fire): number | undefined => {
  const id = /(?:^|; )event (\d+)$/.exec(fire.detail ?? '')?.[1];
  return id === undefined ? undefined : Number(id);
};

/** each event stored is named by exactly one fire marked made: none added twice, none added by a fire still claimed */
function oneEventPerFire({ fires, events }: { fires: Fire[]; events: { id: number }[] }): void {
  const named = fires.filter((f) => f.outcome === 'dispatched').map(eventOf).filter((id) => id !== undefined);
  expect(named.length).toBe(events.length);
  expect(new Set(named)).toEqual(new Set(events.map((e) => e.id)));
}

const JOBS = 100;
/** kills that must land between a claim and its event */
const HITS = 4;
/** kills aimed at a due time until HITS of them land between a claim and its event (claimed fires left behind); the bound only ends a run that never hits */
const MAX_KILLS = 40;
/** how long after a due time the first kill lands: the claims and their events take a few milliseconds, later on a loaded machine */
const FIRST_OFFSET_MS = 5;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// real processes, a real SIGKILL; the proof is in the stored rows, not in timings. On PostgreSQL a
// process never serves alone, so the fires a kill left claimed are retaken after schedules.retakeAfter
describe.each([
  ['SQLite', async () => sqliteBackend()],
  ['PostgreSQL', postgresBackend],
])('main-session fires across kill -9 (herald serve on %s)', { timeout: 300_000 }, (_name, open) => {
  it('adds one event per fire: a fire claimed before the kill is made once after the restart', async () => {
    const db = (backend = await open());
    const file = path.join(tempDir(), 'herald.json');
    // many main jobs due at once: each due time claims a batch of fires, and their events follow in group commits
    const jobs = Array.from({ length: JOBS }, (_, i) => ({
      id: `remind-${i}`,
      schedule: { kind: 'every', every: '1s' },
      sessionTarget: 'main',
      wakeMode: 'next-heartbeat',
      payload: { kind: 'systemEvent', text: `reminder ${i}` },
    }));
    fs.writeFileSync(file, JSON.stringify(baseConfig({ storage: db.storage, schedules: { minEvery: '1s', retakeAfter: '3s', jobs } })));
    const start = async () => {
      spawned = spawnHerald(['serve', '--config', file]);
      await spawned.waitFor(/herald listening on (http:\/\/\S+)/);
    };
    await start();

    let kills = 0;
    // kills that left fires claimed: landed between a claim and the commit that makes it
    let hits = 0;
    // where after a due time the next kill lands: later when a kill came before the due time's claims,
    // sooner when it came after they were all made, so a slow (loaded) machine is hit as well as a fast one
    let offset = FIRST_OFFSET_MS;
    while (hits < HITS && kills < MAX_KILLS) {
      // the next due time, read between passes; the kill lands just after it, while its fires are made
      await sleep(500);
      const [next] = await db.rows<{ due: number }>('SELECT min(next_due) AS due FROM schedules WHERE enabled');
      const due = Number(next!.due);
      await sleep(Math.max(0, due - Date.now()) + offset);
      spawned!.child.kill('SIGKILL');
      await spawned!.exited;
      kills++;
      // as the kill left it: every event stored is named by one fire marked made, and a fire still claimed has added none
      const left = await stored(db);
      oneEventPerFire(left);
      const atDue = left.fires.filter((f) => f.due_at === due);
      if (left.fires.some((f) => f.outcome === 'claimed')) hits++;
      else if (atDue.length === 0) offset = Math.min(offset * 2, 1000);
      else offset = Math.max(offset / 2, 1);
      await start();
    }
    expect(hits).toBe(HITS);
    // the fires the last kill left are made: at the start on SQLite (the process serves it alone), within retakeAfter on PostgreSQL
    await eventually(async () => (await db.rows("SELECT 1 FROM schedule_fires WHERE outcome = 'claimed'")).length === 0, 30_000, 200);
    spawned!.child.kill('SIGTERM');
    expect(await spawned!.exited).toBe(0);

    const { fires, events } = await stored(db);
    // every fire made after the restarts; one naming no event added none, its text repeating the pending one before it (the queue's rule)
    expect(fires.filter((f) => f.outcome !== 'dispatched')).toEqual([]);
    expect(fires.filter((f) => eventOf(f) === undefined && f.detail !== 'event repeated the one before it')).toEqual([]);
    oneEventPerFire({ fires, events });
    const named = fires.map(eventOf);
    const byId = new Map(events.map((e) => [e.id, e.text]));
    expect(fires.every((f, i) => named[i] === undefined || byId.get(named[i]) === `reminder ${f.schedule_id.slice('remind-'.length)}`)).toBe(true);
    // no due time of any job missing across the kills: each job's fires one second apart
    for (const job of jobs) {
      const dues = fires.filter((f) => f.schedule_id === job.id).map((f) => Number(f.due_at));
      // how many fall between two kills depends on how fast each start is; that none is skipped does not
      expect(dues.length).toBeGreaterThan(1);
      expect(dues.slice(1).map((due, k) => due - dues[k]!)).toEqual(dues.slice(1).map(() => 1000));
    }
  });
});
