import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evalQuestions, evaluateSlices, MODES, SETS, type SlicedFigures } from '../../bench/retrieval-eval/slices.js';
import { ADAPTERS, freshStore } from '../../bench/retrieval-eval/stores.js';
import { FIGURES_FILE, type RecordedFigures } from '../../bench/retrieval-slices.bench.js';
import type { Store } from '../../src/store/port.js';
import { requirePostgres } from '../helpers/postgres.js';

// The sliced retrieval evaluation (test/knowledge/eval/) held to the figures recorded beside it
// (`node --import tsx bench/retrieval-slices.bench.ts --record` writes them): every recall@1,
// recall@5 and MRR, per slice, tuned and held out, BM25 and hybrid, on each adapter. A change
// that finds fewer answers or ranks them lower fails here, naming the figures that dropped;
// record again when retrieval improves.
const recorded = JSON.parse(fs.readFileSync(FIGURES_FILE, 'utf8')) as RecordedFigures;

/** each recorded figure the run fell below, as `set slice metric: recorded -> now` */
function drops(was: SlicedFigures, now: SlicedFigures): string[] {
  const found: string[] = [];
  for (const set of SETS) {
    for (const [slice, figures] of Object.entries(was[set])) {
      for (const metric of ['recallAt1', 'recallAt5', 'mrr'] as const) {
        const current = now[set][slice]?.[metric] ?? 0;
        if (current < figures[metric]) found.push(`${set} ${slice} ${metric}: ${figures[metric]} -> ${current}`);
      }
    }
  }
  return found;
}

describe('the evaluation set', () => {
  it('has at least 360 questions in its 9 slices over at least 60 documents, every 5th held out', () => {
    const questions = evalQuestions();
    expect(questions.length).toBeGreaterThanOrEqual(360);
    expect(new Set(questions.map((q) => q.slice)).size).toBe(9);
    expect(new Set(questions.map((q) => q.expect)).size).toBeGreaterThanOrEqual(60);
    expect(questions.filter((q, i) => q.heldOut !== ((i + 1) % 5 === 0))).toEqual([]);
  });
});

for (const adapter of ADAPTERS) {
  describe(`sliced retrieval evaluation on ${adapter}`, () => {
    let store: Store;
    let dispose: () => Promise<void>;
    beforeAll(async () => {
      if (adapter === 'postgres') await requirePostgres();
      ({ store, dispose } = await freshStore(adapter));
    });
    afterAll(() => dispose?.());

    for (const mode of MODES) {
      it(`${mode}: no figure drops below the recorded one`, { timeout: 120_000 }, async () => {
        const { figures, misses } = await evaluateSlices(store, mode);
        const dropped = drops(recorded[adapter][mode], figures);
        // the misses are in the message: what to look at when this fails
        expect({ dropped, misses: dropped.length ? misses : [] }).toEqual({ dropped: [], misses: [] });
      });
    }
  });
}
