/**
 * The retrieval evaluation: a small knowledge base of a made-up shop, written for herald in
 * English and Chinese (bench/retrieval-eval/{en,zh}), plus per language one large generated
 * "order log" in which the common words of the questions (refund, order, delivery, how long,
 * 退款, 订单, 多长时间) are in every chunk, as in the issue that asked for this. Each question
 * names the document that answers it; recall@5 is the share of questions whose document is among
 * the 5 passages returned, MRR the mean of 1 / its rank (0 when absent).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chunkText, DEFAULT_CHUNK } from '../../src/knowledge/parsing/chunk-text.js';
import { KnowledgeIndex } from '../../src/knowledge/knowledge-index.js';
import type { Store } from '../../src/store/port.js';

const here = path.dirname(fileURLToPath(import.meta.url));
export const LANGUAGES = ['en', 'zh'] as const;
export type Language = (typeof LANGUAGES)[number];

export interface LanguageResult {
  language: Language;
  questions: number;
  chunks: number;
  recallAt5: number;
  mrr: number;
  /** the questions whose document was not first: what to look at when a figure drops */
  misses: { question: string; expect: string; got: string[] }[];
}

const LOG_LINES: Record<Language, ((n: number) => string)[]> = {
  en: [
    (n) => `Order ${n}: the customer asked when the refund for the order would arrive; the team checked the order and the delivery and replied the same day.`,
    (n) => `Ticket ${n}: a customer wrote about a late delivery and asked for a refund or a new delivery date; the order was found and the customer was updated.`,
    (n) => `Note ${n}: refund request for order ${n * 7} approved after the return was received; the customer was informed by email.`,
    (n) => `Order ${n}: the customer said the refund took a long time and asked how many days it would still take; the team replied with the order status.`,
  ],
  zh: [
    (n) => `订单${n}：客户询问订单退款什么时候到账，客服查询了订单和配送情况，当天回复了客户。`,
    (n) => `工单${n}：客户反映配送延迟，要求退款或重新安排配送时间，客服找到订单后通知了客户。`,
    (n) => `记录${n}：订单${n * 7}的退货已收到，退款申请已批准，已通过邮件通知客户。`,
    (n) => `订单${n}：客户说退款需要很长时间，询问还要多少天，客服回复了订单状态。`,
  ],
};

/** the generated distractor: `lines` log lines, in one document */
export const orderLog = (language: Language, lines: number) =>
  Array.from({ length: lines }, (_, i) => LOG_LINES[language][i % 4]!(10_000 + i)).join('\n');

export function questions(language: Language): { question: string; expect: string }[] {
  const all = JSON.parse(fs.readFileSync(path.join(here, 'questions.json'), 'utf8')) as Record<Language, { question: string; expect: string }[]>;
  return all[language];
}

/** indexes one language's documents (and its order log) for the agent `eval-<language>`, then asks every question */
export async function evaluateLanguage(store: Store, language: Language, logLines: number): Promise<LanguageResult> {
  const index = new KnowledgeIndex(store.knowledge);
  const agentId = `eval-${language}`;
  const folder = path.join(here, language);
  const files = fs.readdirSync(folder).filter((f) => f.endsWith('.md')).sort();
  const texts = [...files.map((f) => ({ filename: f, text: fs.readFileSync(path.join(folder, f), 'utf8') })), { filename: 'order-log.txt', text: orderLog(language, logLines) }];
  let chunks = 0;
  for (const [i, { filename, text }] of texts.entries()) {
    const pieces = chunkText(text, DEFAULT_CHUNK);
    chunks += pieces.length;
    await index.add({ agentId, filename, bytes: Buffer.byteLength(text), mimeType: 'text/markdown', sha256: `${language}${i}`.padStart(64, '0'), metadata: null }, pieces);
  }
  const asked = questions(language);
  let found = 0;
  let reciprocal = 0;
  const misses: LanguageResult['misses'] = [];
  for (const { question, expect } of asked) {
    const got = (await index.search(agentId, question, 5)).map((p) => p.filename);
    const rank = got.indexOf(expect) + 1;
    if (rank > 0) {
      found++;
      reciprocal += 1 / rank;
    }
    if (rank !== 1) misses.push({ question, expect, got });
  }
  const round = (x: number) => Math.round(x * 1000) / 1000;
  return { language, questions: asked.length, chunks, recallAt5: round(found / asked.length), mrr: round(reciprocal / asked.length), misses };
}
