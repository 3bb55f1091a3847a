import { promptWordCount, wordCount, type CountedText } from '../utils/word-count.js';
import { signalOf, type ModelPassage, type ModelProvider, type ModelRequest, type ModelResponse, type ModelStreamEvent, type ModelUsage } from './provider.js';

export const HEARTBEAT_OK = 'HEARTBEAT_OK';

/**
 * How the embedded model answers a chat question from the retrieved passages: knowledge's
 * extractive answer, which quotes the sentences holding the question's terms as its search made them.
 */
export type QuoteKnowledge = (question: string, passages: readonly ModelPassage[]) => string;

/**
 * The embedded model: offline and deterministic, so a fresh install works with no network
 * and tests need no fakes. It never pretends to reason: it digests events, quotes knowledge,
 * and otherwise says plainly what it received.
 */
export class EmbeddedModel implements ModelProvider {
  constructor(private readonly quote: QuoteKnowledge) {}

  async complete(request: ModelRequest): Promise<ModelResponse> {
    return this.completeNow(request);
  }

  completeNow(request: ModelRequest): ModelResponse {
    signalOf(request)?.throwIfAborted();
    const answered = answer(request, this.quote);
    const full = typeof answered === 'string' ? answered : answered.text;
    // max_tokens counts whitespace words here, as usage does; split into words only to cut (an array of every word per answer otherwise)
    const fullWords = typeof answered === 'string' ? wordCount(full) : answered.words;
    const cut = request.maxTokens !== undefined && fullWords > request.maxTokens;
    const text = cut ? (full.match(/\S+\s*/g) ?? []).slice(0, request.maxTokens).join('').trimEnd() : full;
    return { text, usage: usageOf(request, cut ? wordCount(text) : fullWords), finishReason: cut ? 'length' : 'stop' };
  }

  async *stream(request: ModelRequest): AsyncIterable<ModelStreamEvent> {
    const { text, usage, finishReason } = await this.complete(request);
    // word-sized deltas, so streaming clients see a real stream
    for (const piece of text.match(/\S+\s*|\s+/g) ?? []) yield { type: 'delta', text: piece };
    if (finishReason) yield { type: 'finish', reason: finishReason };
    if (usage) yield { type: 'usage', usage };
  }
}

/** an answer, or a run's acknowledgement with its words counted as it was made (acknowledged) */
function answer(request: ModelRequest, quote: QuoteKnowledge): string | CountedText {
  if (request.purpose === 'heartbeat') {
    const events = request.events ?? [];
    if (events.length === 0) return HEARTBEAT_OK;
    const lines = events.map((e) => `- ${oneLine(e, 200)}`);
    return `${events.length} new event${events.length === 1 ? '' : 's'}:\n${lines.join('\n')}`;
  }
  if (request.purpose === 'chat') {
    // extractive: quotes the matching sentences of the retrieved passages, or says it has nothing
    return quote(request.question ?? request.messages.at(-1)?.content ?? '', request.knowledge ?? []);
  }
  // a hook run asked a question its agent's knowledge may answer (a Q&A bot's slash command): answered as chat answers it
  if (request.knowledge?.length && isQuestion(request.question ?? '')) return quote(request.question!, request.knowledge);
  return acknowledged(oneLine(request.question ?? '', 280));
}

const RECEIVED = 'Received: "';
const CANNOT = `". I am herald's embedded model: I can acknowledge and digest events, but I cannot act on this myself. Configure a model provider to have it handled.`;
/** the words of the acknowledgement's fixed text, each side of the question: counted once */
const FIXED_WORDS = wordCount(RECEIVED) + wordCount(CANNOT);

/**
 * Every hook run's answer: its question quoted between fixed words, counted as it is made (only
 * the question's words are counted per run; the fixed words once). The question is one line,
 * trimmed (oneLine): no space at either end, so its first word joins the opening quote and its
 * last the closing one; an empty question leaves the two quotes one word.
 */
function acknowledged(question: string): CountedText {
  const words = wordCount(question);
  return { text: `${RECEIVED}${question}${CANNOT}`, words: FIXED_WORDS + (words === 0 ? -1 : words - 2) };
}

/** a message that asks something: a question mark (ASCII or full-width), as a chat question has one */
const isQuestion = (text: string): boolean => /[?？]/.test(text);

/** whitespace `oneLine` changes: a run of two, or one that is not a plain space */
const UNFLAT = /\s\s|[^\S ]/;

function oneLine(text: string, max: number): string {
  // a message that is one line already (most are) is not rewritten
  const flat = (UNFLAT.test(text) ? text.replace(/\s+/g, ' ') : text).trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** a rough whitespace token count: the embedded model has no tokenizer, and clients want usage */
function usageOf(request: ModelRequest, completion_tokens: number): ModelUsage {
  const prompt_tokens = promptWordCount(request.messages);
  return { prompt_tokens, completion_tokens, total_tokens: prompt_tokens + completion_tokens };
}
