import { parentPort } from 'node:worker_threads';

/**
 * What a token-count worker thread runs (token-count-thread.ts hands it the texts): OpenAI's
 * tokenizer for the encoding, loaded in this thread at its first task. Loading one (a module of
 * several MB that builds its rank tables as it is evaluated) takes a few hundred ms of CPU, and
 * counting a long prompt some more: the event loop the gateway answers on does neither.
 */
export type TokenEncoding = 'o200k_base' | 'cl100k_base';

/** a task: the texts to count, by their encoding */
export interface TokenCountTask {
  id: number;
  encoding: TokenEncoding;
  texts: string[];
}

/** its answer: each text's tokens in order, or why there are none */
export type TokenCountAnswer = { id: number; counts: number[] } | { id: number; error: string };

type Counter = (text: string) => number;

const counters = new Map<TokenEncoding, Promise<Counter>>();

function counterFor(encoding: TokenEncoding): Promise<Counter> {
  let counter = counters.get(encoding);
  if (!counter) {
    counter = (encoding === 'cl100k_base' ? import('gpt-tokenizer/encoding/cl100k_base') : import('gpt-tokenizer/encoding/o200k_base')).then((m) => m.countTokens);
    // a failed load is tried again by the next task
    counter.catch(() => counters.delete(encoding));
    counters.set(encoding, counter);
  }
  return counter;
}

parentPort?.on('message', ({ id, encoding, texts }: TokenCountTask) => {
  counterFor(encoding).then(
    (count) => parentPort!.postMessage({ id, counts: texts.map((text) => count(text)) } satisfies TokenCountAnswer),
    (error: unknown) => parentPort!.postMessage({ id, error: error instanceof Error ? error.message : String(error) } satisfies TokenCountAnswer),
  );
});
