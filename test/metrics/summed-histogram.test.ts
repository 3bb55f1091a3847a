import { Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { SummedHistogram } from '../../src/metrics/summed-histogram.js';

const config = (registry: Registry) => ({ name: 'duration_seconds', help: 'durations', labelNames: ['surface', 'method'] as const, buckets: [0.005, 0.01, 0.5, 1], registers: [registry] });

describe('a summed histogram', () => {
  it("shows in /metrics what prom-client's own Histogram shows for the same observations", async () => {
    const [summedRegistry, promRegistry] = [new Registry(), new Registry()];
    const summed = new SummedHistogram(config(summedRegistry));
    const prom = new Histogram(config(promRegistry));
    expect(await summedRegistry.metrics()).toBe(await promRegistry.metrics());

    const v1 = summed.cell({ surface: 'v1', method: 'POST' });
    const alsoV1 = summed.cell({ method: 'POST', surface: 'v1' });
    const hooks = summed.cell({ surface: 'hooks', method: 'POST' });
    summed.cell({ surface: 'admin', method: 'GET' });
    const observations: [typeof v1, string, number][] = [
      [v1, 'v1', 0.001],
      [v1, 'v1', 0.005],
      [alsoV1, 'v1', 0.0051],
      [hooks, 'hooks', 0.7],
      [hooks, 'hooks', 3],
      [v1, 'v1', 1],
    ];
    for (const [cell, surface, seconds] of observations) {
      cell.observe(seconds);
      prom.observe({ surface, method: 'POST' }, seconds);
    }
    const text = await summedRegistry.metrics();
    expect(text).toBe(await promRegistry.metrics());
    expect(text).toContain('duration_seconds_bucket{le="0.005",surface="v1",method="POST"} 2');
    expect(text).toContain('duration_seconds_count{surface="hooks",method="POST"} 2');
    expect(text).not.toContain('GET');

    summedRegistry.resetMetrics();
    promRegistry.resetMetrics();
    expect(await summedRegistry.metrics()).toBe(await promRegistry.metrics());
  });
});
