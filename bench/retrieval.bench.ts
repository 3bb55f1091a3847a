/**
 * Retrieval quality: recall@5 and MRR of the labelled questions of bench/retrieval-eval, per
 * language and per store adapter (SQLite, PostgreSQL). Run: `node --import tsx bench/retrieval.bench.ts`
 * (RETRIEVAL_LOG_LINES sets the size of the generated order log; the test uses the same default).
 * `--misses` also lists the questions whose document was not ranked first.
 */
import { pathToFileURL } from 'node:url';
import { evaluateLanguage, LANGUAGES, type LanguageResult } from './retrieval-eval/evaluate.js';
import { ADAPTERS, freshStore, type Adapter } from './retrieval-eval/stores.js';

export const DEFAULT_LOG_LINES = 20_000;

export async function run(logLines = Number(process.env.RETRIEVAL_LOG_LINES ?? DEFAULT_LOG_LINES), adapters: readonly Adapter[] = ADAPTERS) {
  const results: (LanguageResult & { adapter: Adapter })[] = [];
  for (const adapter of adapters) {
    const { store, dispose } = await freshStore(adapter);
    try {
      for (const language of LANGUAGES) results.push({ adapter, ...(await evaluateLanguage(store, language, logLines)) });
    } finally {
      await dispose();
    }
  }
  console.log('retrieval: recall@5 and MRR of bench/retrieval-eval (labelled questions, one answering document each)');
  for (const r of results) {
    console.log(`  ${r.adapter.padEnd(8)} ${r.language}: ${r.questions} questions over ${r.chunks} chunks: recall@5 ${r.recallAt5.toFixed(3)}, MRR ${r.mrr.toFixed(3)}`);
    if (process.argv.includes('--misses')) for (const m of r.misses) console.log(`      ${m.question} -> wanted ${m.expect}, got ${m.got.join(', ') || 'nothing'}`);
  }
  return results;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await run();
