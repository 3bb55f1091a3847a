import { describe, expect, it } from 'vitest';
import { healthRecorded } from '../../src/models/providers/provider-health.js';
import type { ModelProvider, ModelRequest, ModelStreamEvent } from '../../src/models/provider.js';
import { HealthLedger } from '../../src/utils/health-ledger.js';

/** a provider's calls told to its health record: failures in a row, a success clearing them, a call given up on not counted */
const request = (signal?: AbortSignal): ModelRequest => ({ model: 'm', messages: [{ role: 'user', content: 'hi' }], signal }) as ModelRequest;

function provider(outcomes: (Error | 'ok')[]): ModelProvider {
  const next = () => outcomes.shift() ?? 'ok';
  return {
    clientTools: true,
    complete: async () => {
      const o = next();
      if (o !== 'ok') throw o;
      return { content: 'fine' } as never;
    },
    async *stream(): AsyncIterable<ModelStreamEvent> {
      const o = next();
      if (o !== 'ok') throw o;
      yield { type: 'text', text: 'fine' } as never;
    },
  };
}

describe('healthRecorded', () => {
  it('counts failures in a row with their cause, and a success clears them; told only when it changes', async () => {
    let told = 0;
    const ledger = new HealthLedger(() => told++);
    const refused = Object.assign(new Error('401 Incorrect API key provided'), { status: 401 });
    const p = healthRecorded(provider([refused, new Error('Connection error.'), 'ok', 'ok']), 'up', ledger);
    await expect(p.complete(request())).rejects.toThrow('401');
    expect(ledger.unhealthy()).toEqual([{ name: 'up', lastOkAt: null, lastFailureAt: expect.any(Number), since: expect.any(Number), cause: '401 Incorrect API key provided', consecutiveFailures: 1 }]);
    await expect(async () => {
      for await (const _ of p.stream(request())) void _;
    }).rejects.toThrow('Connection error.');
    expect(ledger.unhealthy()[0]).toMatchObject({ cause: 'Connection error.', consecutiveFailures: 2 });
    expect(told).toBe(2);
    await p.complete(request());
    expect(ledger.unhealthy()).toEqual([]);
    expect(ledger.entries()[0]).toMatchObject({ name: 'up', lastOkAt: expect.any(Number), consecutiveFailures: 0, since: null });
    expect(told).toBe(3);
    // a success after a success: nothing to tell
    await p.complete(request());
    expect(told).toBe(3);
  });

  it('does not count a call its caller gave up on', async () => {
    const ledger = new HealthLedger();
    const p = healthRecorded(provider([new Error('This operation was aborted')]), 'up', ledger);
    const gone = new AbortController();
    gone.abort();
    await expect(p.complete(request(gone.signal))).rejects.toThrow('aborted');
    expect(ledger.entries()).toEqual([]);
  });

  it('masks the key an upstream echoes in its refusal: the cause is shown and shared among replicas', async () => {
    const ledger = new HealthLedger();
    // OpenAI's 401 names the key it refused (https://platform.openai.com/docs/guides/error-codes#api-errors)
    const refused = Object.assign(new Error('401 Incorrect API key provided: sk-wrong-0123. You can find your API key at https://platform.openai.com/account/api-keys.'), { status: 401 });
    const p = healthRecorded(provider([refused]), 'up', ledger, 'sk-wrong-0123');
    await expect(p.complete(request())).rejects.toThrow('401');
    expect(ledger.unhealthy()[0]!.cause).toBe('401 Incorrect API key provided: ***. You can find your API key at https://platform.openai.com/account/api-keys.');
  });

  it('forgets the parts a reload removed', () => {
    const ledger = new HealthLedger();
    ledger.failed('gone', 'x');
    ledger.failed('kept', 'y');
    ledger.retain((name) => name === 'kept');
    expect(ledger.entries().map((p) => p.name)).toEqual(['kept']);
  });
});
