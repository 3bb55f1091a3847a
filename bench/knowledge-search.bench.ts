/**
 * Knowledge search speed on SQLite: a generated corpus (100 documents of 1,000 chunks by
 * default, 100,000 chunks; Zipf-like words so a few are in nearly every chunk, as in real text),
 * then p50/p95 of searches for ordinary questions and for questions made only of the most
 * frequent words, and the process's RSS afterwards.
 * Standalone: `node --import tsx bench/knowledge-search.bench.ts` (KNOWLEDGE_BENCH_DB=path keeps
 * the corpus between runs, for profiling with `node --cpu-prof`; KNOWLEDGE_BENCH_HERALD_ROOT=dir
 * searches with the herald checkout there, e.g. main, for a before/after on the same corpus);
 * platform.bench.ts runs it too.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { percentile } from './table.js';
import { chunkText } from '../src/knowledge/parsing/chunk-text.js';
import type { KnowledgeIndex as KnowledgeIndexClass } from '../src/knowledge/knowledge-index.js';
import type { openSqliteStore as OpenSqliteStore } from '../src/store/sqlite/sqlite-store.js';

export interface SearchFigures {
  queries: number;
  p50Ms: number;
  p95Ms: number;
  meanMs: number;
  /** the process's CPU time per search (user + system): steadier than wall time on a shared machine */
  cpuP50Ms: number;
  cpuP95Ms: number;
}

export interface KnowledgeSpeed {
  ingest: { chunks: number; seconds: number; chunksPerSecond: number };
  search: SearchFigures;
  frequentSearch: SearchFigures;
  /** the process's resident memory after the searches, and the JavaScript heap's part of it, MB */
  rssMb: number;
  heapMb: number;
}

/** the herald to search with: this checkout, or the one at KNOWLEDGE_BENCH_HERALD_ROOT */
async function heraldModules() {
  const root = process.env.KNOWLEDGE_BENCH_HERALD_ROOT ? path.resolve(process.env.KNOWLEDGE_BENCH_HERALD_ROOT) : path.resolve(import.meta.dirname, '..');
  const index = (await import(pathToFileURL(path.join(root, 'src/knowledge/knowledge-index.ts')).href)) as { KnowledgeIndex: typeof KnowledgeIndexClass };
  const store = (await import(pathToFileURL(path.join(root, 'src/store/sqlite/sqlite-store.ts')).href)) as { openSqliteStore: typeof OpenSqliteStore };
  return { KnowledgeIndex: index.KnowledgeIndex, openSqliteStore: store.openSqliteStore };
}

function random(seed: number) {
  return () => {
    seed = (seed * 1664525 + 1013904223) >>> 0;
    return seed / 2 ** 32;
  };
}

function vocabulary(size: number, rand: () => number): string[] {
  const letters = 'abcdefghijklmnopqrstuvwxyz';
  return Array.from({ length: size }, () => Array.from({ length: 3 + Math.floor(rand() * 7) }, () => letters[Math.floor(rand() * 26)]).join(''));
}

async function timed(queries: string[], search: (q: string) => Promise<unknown>): Promise<SearchFigures> {
  const times: number[] = [];
  const cpu: number[] = [];
  for (const q of queries) {
    const t = performance.now();
    const c = process.cpuUsage();
    await search(q);
    const used = process.cpuUsage(c);
    times.push(performance.now() - t);
    cpu.push((used.user + used.system) / 1000);
  }
  const at = (list: number[], p: number) => Math.round(percentile([...list].sort((a, b) => a - b), p) * 100) / 100;
  return {
    queries: queries.length,
    p50Ms: at(times, 0.5),
    p95Ms: at(times, 0.95),
    meanMs: Math.round((times.reduce((a, b) => a + b, 0) / times.length) * 100) / 100,
    cpuP50Ms: at(cpu, 0.5),
    cpuP95Ms: at(cpu, 0.95),
  };
}

export async function knowledgeSpeed(documents = 100, chunksPerDocument = 1000, queries = 500): Promise<KnowledgeSpeed> {
  const rand = random(42);
  const words = vocabulary(20_000, rand);
  // Zipf-like: a few words are everywhere, most are rare, like real text
  const zipf = (r: () => number) => words[Math.floor(words.length * r() ** 3)]!;
  const word = () => zipf(rand);
  const sentence = () => `${Array.from({ length: 8 + Math.floor(rand() * 10) }, word).join(' ')}.`;
  const kept = process.env.KNOWLEDGE_BENCH_DB;
  const dir = kept ? undefined : fs.mkdtempSync(path.join(os.tmpdir(), 'herald-bench-kb-'));
  const file = kept ?? path.join(dir!, 'kb.db');
  const reuse = kept !== undefined && fs.existsSync(kept);
  const { KnowledgeIndex, openSqliteStore } = await heraldModules();
  const store = openSqliteStore(file);
  const index = new KnowledgeIndex(store.knowledge);
  try {
    let chunks = 0;
    const started = performance.now();
    // a kept corpus is not generated again: its garbage would be collected (on other threads) while searches are timed
    for (let d = 0; d < documents && !reuse; d++) {
      // ~1.1 chunks of text per chunk wanted, cut to the count: the corpus has exactly documents × chunksPerDocument
      const text = Array.from({ length: chunksPerDocument * 7 }, sentence).join(' ');
      const pieces = chunkText(text, { size: 700, overlap: 100 }).slice(0, chunksPerDocument);
      await index.add({ agentId: 'bench', filename: `doc-${d}.txt`, bytes: text.length, mimeType: 'text/plain', sha256: `${d}`.padStart(64, '0'), metadata: null }, pieces);
      chunks += pieces.length;
    }
    if (reuse) chunks = (await store.probe.counts()).knowledgeChunks;
    const seconds = (performance.now() - started) / 1000;
    // the questions have their own generator: the same questions whether the corpus was generated now or kept
    const ask = random(7);
    const ordinary = Array.from({ length: queries }, () => `what about ${zipf(ask)} and ${words[Math.floor(ask() * words.length)]} ${zipf(ask)}?`);
    // the ten most frequent words: each is in most chunks
    const top = () => words[Math.floor(ask() * 10)]!;
    const frequent = Array.from({ length: queries }, () => `what about ${top()} and ${top()} ${top()}?`);
    const search = async (q: string) => index.search('bench', q, 4);
    // the ingest's garbage is collected on other threads, whose CPU time would be counted to the searches
    await new Promise((resolve) => setTimeout(resolve, reuse ? 0 : 2000));
    return {
      ingest: { chunks, seconds: Math.round(seconds * 100) / 100, chunksPerSecond: reuse ? 0 : Math.round(chunks / seconds) },
      search: await timed(ordinary, search),
      frequentSearch: await timed(frequent, search),
      rssMb: Math.round(process.memoryUsage().rss / 2 ** 20),
      heapMb: Math.round(process.memoryUsage().heapUsed / 2 ** 20),
    };
  } finally {
    await store.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  }
}

export function printKnowledgeSpeed(kb: KnowledgeSpeed): void {
  console.log(`platform: knowledge ingest ${kb.ingest.chunks} chunks in ${kb.ingest.seconds} s (${kb.ingest.chunksPerSecond} chunks/s)`);
  for (const [name, s] of [['ordinary questions', kb.search], ['frequent-term questions', kb.frequentSearch]] as const) {
    console.log(
      `platform: knowledge search over ${kb.ingest.chunks} chunks, ${name}: p50 ${s.p50Ms} ms, p95 ${s.p95Ms} ms, mean ${s.meanMs} ms; CPU per search p50 ${s.cpuP50Ms} ms, p95 ${s.cpuP95Ms} ms (${s.queries} queries)`,
    );
  }
  console.log(`platform: knowledge search process RSS ${kb.rssMb} MB (JavaScript heap ${kb.heapMb} MB) after the searches`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const env = (name: string, fallback: number) => (process.env[name] ? Number(process.env[name]) : fallback);
  printKnowledgeSpeed(await knowledgeSpeed(env('BENCH_KB_DOCUMENTS', 100), env('BENCH_KB_CHUNKS_PER_DOCUMENT', 1000), env('BENCH_KB_QUERIES', 500)));
}
