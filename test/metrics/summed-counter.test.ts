import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { SummedCounter } from '../../src/metrics/summed-counter.js';

describe('a summed counter', () => {
  it('shows in /metrics what its cells counted, each read adding what came since the last', async () => {
    const registry = new Registry();
    const requests = new SummedCounter({ name: 'requests_total', help: 'requests', labelNames: ['status'], registers: [registry] });
    const ok = requests.cell({ status: '200' });
    const alsoOk = requests.cell({ status: '200' });
    const missing = requests.cell({ status: '404' });
    expect(await registry.metrics()).not.toContain('requests_total{');
    ok.n += 2;
    alsoOk.n++;
    expect(await registry.metrics()).toContain('requests_total{status="200"} 3');
    expect(await registry.metrics()).toContain('requests_total{status="200"} 3');
    ok.n++;
    missing.n += 0.5;
    const text = await registry.metrics();
    expect(text).toContain('requests_total{status="200"} 4');
    expect(text).toContain('requests_total{status="404"} 0.5');
    expect((await registry.getMetricsAsJSON())[0]!.values).toHaveLength(2);
  });
});
