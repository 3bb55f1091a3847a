import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { killLeftOver, spawnHerald, type SpawnedHerald } from '../../cli/spawn-herald.js';
import { baseConfig, tempDir } from '../../helpers/start-herald.js';

let spawned: SpawnedHerald | undefined;
afterEach(async () => {
  await killLeftOver(spawned);
  spawned = undefined;
});

/** rows of the SQLite file, read beside (or after) the process that writes it */
function rows<T>(file: string, sql: string): T[] {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare(sql).all() as T[];
  } finally {
    db.close();
  }
}

interface Fire {
  schedule_id: string;
  due_at: number;
  outcome: string;
  detail: string | null;
}

/** the fires and the main session's events as stored */
function stored(file: string): { fires: Fire[]; events: { id: number; text: string }[] } {
  return {
    fires: rows<Fire>(file, 'SELECT schedule_id, due_at, outcome, detail FROM schedule_fires ORDER BY schedule_id, due_at'),
    events: rows(file, "SELECT id, text FROM events WHERE session = 'main'"),
  };
}

/** the event a fire's detail names */
const eventOf = (fire: Fire): number | undefined => {
  const id = /^event (\d+)$/.exec(fire.detail ?? '')?.[1];
  return id === undefined ? undefined : Number(id);
};

const JOBS = 100;
/** kills that must land between a claim and its event */
const HITS = 3;
/** kills aimed at a due time until HITS of them land between a claim and its event (claimed fires left behind); the bound only ends a run that never hits */
const MAX_KILLS = 20;
/** how long after a due time each kill lands, in turn: the claims and their events take a few milliseconds under this load */
const OFFSETS_MS = [2, 5, 10, 20, 40];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// real processes, a real SIGKILL; the proof is in the stored rows, not in timings
describe('main-session fires across kill -9 (herald serve on SQLite)', { timeout: 300_000 }, () => {
  it('adds one event per fire: a fire claimed before the kill is made once at the restart', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'herald.json');
    const dbFile = path.join(dir, 'herald.db');
    // many main jobs due at once: each due time claims a batch of fires, and their events follow in group commits
    const jobs = Array.from({ length: JOBS }, (_, i) => ({
      id: `remind-${i}`,
      schedule: { kind: 'every', every: '1s' },
      sessionTarget: 'main',
      wakeMode: 'next-heartbeat',
      payload: { kind: 'systemEvent', text: `reminder ${i}` },
    }));
    fs.writeFileSync(file, JSON.stringify(baseConfig({ storage: { sqlite: dbFile }, schedules: { minEvery: '1s', jobs } })));
    const start = async () => {
      spawned = spawnHerald(['serve', '--config', file]);
      await spawned.waitFor(/herald listening on (http:\/\/\S+)/);
    };
    await start();

    let kills = 0;
    // kills that left fires claimed: landed between a claim and the commit that makes it
    let hits = 0;
    while (hits < HITS && kills < MAX_KILLS) {
      // the next due time, read between passes; the kill lands just after it, while its fires are made
      await sleep(500);
      const [next] = rows<{ due: number }>(dbFile, 'SELECT min(next_due) AS due FROM schedules WHERE enabled');
      await sleep(Math.max(0, next!.due - Date.now()) + OFFSETS_MS[kills % OFFSETS_MS.length]!);
      spawned!.child.kill('SIGKILL');
      await spawned!.exited;
      kills++;
      // as the kill left it: every event stored is named by a fire marked made, and a fire still claimed has added none
      const { fires, events } = stored(dbFile);
      expect(events.length).toBe(fires.filter((f) => f.outcome === 'dispatched').length);
      expect(new Set(fires.map(eventOf).filter((id) => id !== undefined))).toEqual(new Set(events.map((e) => e.id)));
      if (fires.some((f) => f.outcome === 'claimed')) hits++;
      await start();
    }
    expect(hits).toBe(HITS);
    await sleep(3_000);
    spawned!.child.kill('SIGTERM');
    expect(await spawned!.exited).toBe(0);

    const { fires, events } = stored(dbFile);
    // every fire made at the restarts, each naming the event it added (none repeats: the texts differ)
    expect(fires.filter((f) => f.outcome !== 'dispatched')).toEqual([]);
    const named = fires.map(eventOf);
    expect(named.filter((id) => id === undefined)).toEqual([]);
    // one event per fire: as many events as fires, each named by exactly one fire
    expect(events.length).toBe(fires.length);
    expect(new Set(named)).toEqual(new Set(events.map((e) => e.id)));
    const byId = new Map(events.map((e) => [e.id, e.text]));
    expect(fires.every((f, i) => byId.get(named[i]!) === `reminder ${f.schedule_id.slice('remind-'.length)}`)).toBe(true);
    // no due time of any job missing across the kills: each job's fires one second apart
    for (const job of jobs) {
      const dues = fires.filter((f) => f.schedule_id === job.id).map((f) => Number(f.due_at));
      expect(dues.length).toBeGreaterThan(kills);
      expect(dues.slice(1).map((due, k) => due - dues[k]!)).toEqual(dues.slice(1).map(() => 1000));
    }
  });
});
