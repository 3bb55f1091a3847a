import { pathToFileURL } from 'node:url';
import { installedPath } from '../utils/install-layout.js';
import { wordCount } from '../utils/word-count.js';
import type { ChatMessage } from './provider.js';
import { TokenCountThread } from './token-count-thread.js';
import type { TokenEncoding } from './token-count-worker.js';

/**
 * Token counts herald makes itself, where no provider counted: a stream the client dropped, a
 * provider that sends no usage, embeddings answered without usage. Budgets must err on their side,
 * so a count is OpenAI's tokenizer's for the model (`gpt-tokenizer`: o200k_base for the current
 * models, cl100k_base for gpt-3.5, gpt-4 and the text-embedding models), never below the words
 * (the embedded model's count). The tokenizer is loaded at the first estimate, never at start and
 * never for a call whose provider reported its usage, and it loads and counts in a worker thread
 * (token-count-worker.ts): never on the event loop.
 *
 * The thread starts from token-count-worker.js when compiled; from the sources, from an entry
 * that registers tsx in the thread first (loader hooks are per thread).
 */
const counting = new TokenCountThread(pathToFileURL(installedPath('dist/src/models/token-count-worker.js', 'src/models/token-count-worker-entry.mjs')));

/** the encoding OpenAI documents for a model (https://github.com/openai/tiktoken, model.py) */
export function encodingFor(model: string): TokenEncoding {
  const name = model.slice(model.lastIndexOf('/') + 1).toLowerCase();
  return /^(gpt-3\.5|gpt-4(?![o.])|gpt-4-|text-embedding-|davinci|babbage)/.test(name) ? 'cl100k_base' : 'o200k_base';
}

/** the tokens of `texts` together for `model`: each text its tokenizer's count, never below its words; all counted in one task */
export async function estimateTextsTokens(texts: readonly string[], model: string): Promise<number> {
  const written = texts.filter((text) => text !== '');
  if (written.length === 0) return 0;
  let counts: number[] | undefined;
  try {
    counts = await counting.count(encodingFor(model), written);
  } catch {
    // the tokenizer could not be loaded or run (its thread failed): the words are the floor
  }
  return written.reduce((sum, text, i) => sum + Math.max(wordCount(text), counts?.[i] ?? 0), 0);
}

/** the tokens of `text` for `model`: its tokenizer's count, never below its words */
export function estimateTokens(text: string, model: string): Promise<number> {
  return estimateTextsTokens([text], model);
}

/**
 * A chat prompt's tokens: each message's content and tool calls, and what OpenAI's chat format adds
 * around them (3 tokens a message, 3 priming the reply: OpenAI's cookbook, "How to count tokens
 * with tiktoken"; its role and a tool call's name and id counted as text).
 */
export async function estimatePromptTokens(messages: readonly ChatMessage[], model: string): Promise<number> {
  const texts: string[] = [];
  for (const m of messages) {
    texts.push(m.role, m.content);
    for (const call of m.tool_calls ?? []) texts.push(`${call.id} ${call.function.name} ${call.function.arguments}`);
    if (m.tool_call_id) texts.push(m.tool_call_id);
  }
  return 3 + 3 * messages.length + (await estimateTextsTokens(texts, model));
}
