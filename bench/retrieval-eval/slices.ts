/**
 * The sliced retrieval evaluation of test/knowledge/eval/ (its README says how it was written):
 * company documents in English, Chinese, Chinese mixed with English, Japanese and Korean, and
 * questions labelled with the slice they test and the one document that answers them. Every 5th
 * question is held out: never looked at while tuning, reported apart.
 *
 * Documents go through herald's own ingestion (type detection, text, chunks and index terms, as
 * a parse worker makes them) into a real store, and questions through `KnowledgeIndex.search`:
 * full text alone (BM25), and hybrid with the deterministic embeddings of the tests' fake
 * provider. For each question the rank is that of the first of the 5 passages returned that
 * comes from its document: recall@1 (the passage quoted first is from it), recall@5, MRR.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_CHUNK } from '../../src/knowledge/parsing/chunk-text.js';
import type { Embedder } from '../../src/knowledge/embedder.js';
import { KnowledgeIndex } from '../../src/knowledge/knowledge-index.js';
import { documentTypes } from '../../src/knowledge/parsing/detect-type.js';
import { parseDocument } from '../../src/knowledge/parsing/parse-document.js';
import { indexTextOf } from '../../src/knowledge/text-terms.js';
import type { Store } from '../../src/store/port.js';
import { fakeEmbedding } from '../../test/helpers/fake-embeddings.js';

export const EVAL_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../test/knowledge/eval');
export const MODES = ['bm25', 'hybrid'] as const;
export type Mode = (typeof MODES)[number];
export const SETS = ['tuned', 'heldOut'] as const;
export type QuestionSet = (typeof SETS)[number];

export interface EvalDocument {
  id: string;
  language: string;
  title: string;
  text: string;
}
export interface EvalQuestion {
  id: string;
  slice: string;
  question: string;
  expect: string;
  heldOut: boolean;
}
export interface Figures {
  questions: number;
  recallAt1: number;
  recallAt5: number;
  mrr: number;
}
/** figures by set (tuned, heldOut), then by slice (and `all`) */
export type SlicedFigures = Record<QuestionSet, Record<string, Figures>>;
export interface Miss {
  id: string;
  heldOut: boolean;
  slice: string;
  question: string;
  expect: string;
  got: string[];
}

const read = <T>(name: string): T => JSON.parse(fs.readFileSync(path.join(EVAL_DIR, name), 'utf8')) as T;
export const evalDocuments = () => read<EvalDocument[]>('documents.json');
export const evalQuestions = () => read<EvalQuestion[]>('questions.json');

/** the tests' fake embeddings model, in process: the same vectors its HTTP fake answers */
export const fakeEmbedder: Embedder = {
  ref: 'fake/embed-1',
  embed: async (texts) => texts.map((t) => Float32Array.from(fakeEmbedding(t))),
};

const LIMITS = { maxInflatedEntryBytes: 16 << 20, maxTextChars: 5_000_000, maxChunks: 50_000 };

/** the corpus into the store for `agentId`, each document as `<id>.md`, through herald's ingestion */
export async function ingestCorpus(index: KnowledgeIndex, agentId: string): Promise<void> {
  for (const [i, doc] of evalDocuments().entries()) {
    const filename = `${doc.id}.md`;
    const bytes = new TextEncoder().encode(doc.text);
    const { type, chunks } = await parseDocument({ bytes, filename, chunking: DEFAULT_CHUNK, limits: LIMITS });
    await index.add(
      { agentId, filename, bytes: bytes.byteLength, mimeType: documentTypes[type], sha256: `${i + 1}`.padStart(64, '0'), metadata: null },
      chunks.map((content) => ({ content, terms: indexTextOf(content) })),
    );
  }
}

const round = (x: number) => Math.round(x * 1000) / 1000;

function figuresOf(ranks: number[]): Figures {
  const n = Math.max(1, ranks.length);
  return {
    questions: ranks.length,
    recallAt1: round(ranks.filter((r) => r === 1).length / n),
    recallAt5: round(ranks.filter((r) => r > 0).length / n),
    mrr: round(ranks.reduce((s, r) => s + (r > 0 ? 1 / r : 0), 0) / n),
  };
}

/** every question of the set asked of one store, in one mode; the figures per slice and the misses (not ranked first) */
export async function evaluateSlices(store: Store, mode: Mode): Promise<{ figures: SlicedFigures; misses: Miss[] }> {
  const index = new KnowledgeIndex(store.knowledge, mode === 'hybrid' ? { embedder: fakeEmbedder } : {});
  const agentId = `eval-${mode}`;
  await ingestCorpus(index, agentId);
  const ranks: Record<QuestionSet, Map<string, number[]>> = { tuned: new Map(), heldOut: new Map() };
  const misses: Miss[] = [];
  for (const q of evalQuestions()) {
    const got = (await index.search(agentId, q.question, 5)).map((p) => p.filename.replace(/\.md$/, ''));
    const rank = got.indexOf(q.expect) + 1;
    const bySlice = ranks[q.heldOut ? 'heldOut' : 'tuned'];
    for (const key of [q.slice, 'all']) bySlice.set(key, [...(bySlice.get(key) ?? []), rank]);
    if (rank !== 1) misses.push({ id: q.id, heldOut: q.heldOut, slice: q.slice, question: q.question, expect: q.expect, got });
  }
  const figures = Object.fromEntries(SETS.map((set) => [set, Object.fromEntries([...ranks[set]].sort(([a], [b]) => a.localeCompare(b)).map(([slice, r]) => [slice, figuresOf(r)]))])) as SlicedFigures;
  return { figures, misses };
}
