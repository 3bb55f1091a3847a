/**
 * Retrieval quality per slice of test/knowledge/eval/: recall@1, recall@5 and MRR, BM25 alone and
 * hybrid (fake embeddings), tuned and held-out questions, on SQLite and PostgreSQL.
 * Run: `node --import tsx bench/retrieval-slices.bench.ts` (`--misses` lists the questions whose
 * document was not ranked first, of the tuned questions only (`--held-out-misses` adds the held-out ones:
 * never while tuning), `--record` writes the figures to test/knowledge/eval/figures.json,
 * the floor test/knowledge/retrieval-slices.e2e.test.ts holds them to).
 */
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { EVAL_DIR, evaluateSlices, MODES, SETS, type Miss, type Mode, type SlicedFigures } from './retrieval-eval/slices.js';
import { ADAPTERS, freshStore, type Adapter } from './retrieval-eval/stores.js';

export type RecordedFigures = Record<Adapter, Record<Mode, SlicedFigures>>;
export const FIGURES_FILE = path.join(EVAL_DIR, 'figures.json');

export async function run(adapters: readonly Adapter[] = ADAPTERS): Promise<{ figures: Partial<RecordedFigures>; misses: Record<string, Miss[]> }> {
  const figures: Partial<RecordedFigures> = {};
  const misses: Record<string, Miss[]> = {};
  for (const adapter of adapters) {
    const { store, dispose } = await freshStore(adapter);
    try {
      const byMode = {} as Record<Mode, SlicedFigures>;
      for (const mode of MODES) {
        const result = await evaluateSlices(store, mode);
        byMode[mode] = result.figures;
        misses[`${adapter} ${mode}`] = result.misses;
      }
      figures[adapter] = byMode;
    } finally {
      await dispose();
    }
  }
  return { figures, misses };
}

const f = (x: number) => x.toFixed(3);

/** one table per adapter: a row per slice, R@1 / R@5 / MRR for each mode and set */
export function table(figures: Partial<RecordedFigures>): string {
  const lines: string[] = [];
  for (const [adapter, byMode] of Object.entries(figures)) {
    const slices = Object.keys(byMode.bm25.tuned);
    lines.push(`${adapter}: recall@1 / recall@5 / MRR`, '', '| slice | questions (tuned + held out) | BM25, tuned | BM25, held out | hybrid, tuned | hybrid, held out |', '|---|---|---|---|---|---|');
    for (const slice of [...slices.filter((s) => s !== 'all'), 'all']) {
      const cells = MODES.flatMap((mode) => SETS.map((set) => byMode[mode][set][slice]!)).map((x) => `${f(x.recallAt1)} / ${f(x.recallAt5)} / ${f(x.mrr)}`);
      lines.push(`| ${slice} | ${byMode.bm25.tuned[slice]!.questions} + ${byMode.bm25.heldOut[slice]!.questions} | ${cells.join(' | ')} |`);
    }
    lines.push('');
  }
  return lines.join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { figures, misses } = await run();
  console.log(table(figures));
  if (process.argv.includes('--misses')) {
    for (const [run, list] of Object.entries(misses)) {
      console.log(`misses, ${run}:`);
      for (const m of list.filter((m) => !m.heldOut || process.argv.includes('--held-out-misses'))) console.log(`  ${m.id} [${m.slice}] ${m.question} -> wanted ${m.expect}, got ${m.got.join(', ') || 'nothing'}`);
    }
  }
  if (process.argv.includes('--record')) {
    fs.writeFileSync(FIGURES_FILE, `${JSON.stringify(figures, null, 1)}\n`);
    console.log(`recorded in ${path.relative(process.cwd(), FIGURES_FILE)}`);
  }
}
