import type { ChatMessage } from './provider.js';
import { wordCount } from '../utils/word-count.js';

/**
 * Token counts herald makes itself, where no provider counted: a stream the client dropped, a
 * provider that sends no usage, embeddings answered without usage. Budgets must err on their side,
 * so a count is OpenAI's tokenizer's for the model (`gpt-tokenizer`: o200k_base for the current
 * models, cl100k_base for gpt-3.5, gpt-4 and the text-embedding models), never below the words
 * (the embedded model's count). The tokenizer is loaded at the first estimate, never at start and
 * never for a call whose provider reported its usage.
 */
type Encoding = 'o200k_base' | 'cl100k_base';
type Counter = (text: string) => number;

const loading = new Map<Encoding, Promise<Counter>>();

/** the encoding OpenAI documents for a model (https://github.com/openai/tiktoken, model.py) */
export function encodingFor(model: string): Encoding {
  const name = model.slice(model.lastIndexOf('/') + 1).toLowerCase();
  return /^(gpt-3\.5|gpt-4(?![o.])|gpt-4-|text-embedding-|davinci|babbage)/.test(name) ? 'cl100k_base' : 'o200k_base';
}

function counter(encoding: Encoding): Promise<Counter> {
  let counting = loading.get(encoding);
  if (!counting) {
    counting = (encoding === 'cl100k_base' ? import('gpt-tokenizer/encoding/cl100k_base') : import('gpt-tokenizer/encoding/o200k_base')).then(
      (m) => (text: string) => m.countTokens(text),
    );
    // a failed load is tried again by the next estimate (words count meanwhile)
    counting.catch(() => loading.delete(encoding));
    loading.set(encoding, counting);
  }
  return counting;
}

/** the tokens of `text` for `model`: its tokenizer's count, never below its words */
export async function estimateTokens(text: string, model: string): Promise<number> {
  if (!text) return 0;
  const words = wordCount(text);
  try {
    return Math.max(words, (await counter(encodingFor(model)))(text));
  } catch {
    return words;
  }
}

/**
 * A chat prompt's tokens: each message's content and tool calls, and what OpenAI's chat format adds
 * around them (3 tokens a message, 3 priming the reply: OpenAI's cookbook, "How to count tokens
 * with tiktoken"; its role and a tool call's name and id counted as text).
 */
export async function estimatePromptTokens(messages: readonly ChatMessage[], model: string): Promise<number> {
  let tokens = 3;
  for (const m of messages) {
    tokens += 3 + (await estimateTokens(m.role, model)) + (await estimateTokens(m.content, model));
    for (const call of m.tool_calls ?? []) tokens += await estimateTokens(`${call.id} ${call.function.name} ${call.function.arguments}`, model);
    if (m.tool_call_id) tokens += await estimateTokens(m.tool_call_id, model);
  }
  return tokens;
}
