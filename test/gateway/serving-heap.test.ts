import { describe, expect, it } from 'vitest';
import { OLD_GENERATION_GROWTH_PERCENT, servingHeapFlags } from '../../src/gateway/serving-heap.js';

describe('the heap herald serves with', () => {
  it('gives the young generation its growth back and bounds the old generation\'s', () => {
    expect(servingHeapFlags('')).toEqual(['--semi-space-growth-factor=2', '--opt', `--heap-growing-percent=${OLD_GENERATION_GROWTH_PERCENT}`]);
  });

  it('leaves an operator\'s own old-generation growth as given, in node\'s flags or NODE_OPTIONS', () => {
    for (const given of ['--heap-growing-percent=200', '--enable-source-maps --heap_growing_percent=10', '--heap-growing-percent 30']) {
      expect(servingHeapFlags(given)).toEqual(['--semi-space-growth-factor=2', '--opt']);
    }
  });

  it('turns the optimising compiler back on, unless the operator set it in node\'s flags', () => {
    for (const given of ['--no-opt', '--jitless', '--max-opt=2', '--no_turbofan', '--always-turbofan', '--opt']) {
      expect(servingHeapFlags(given)).not.toContain('--opt');
    }
    expect(servingHeapFlags('--optimize-for-size --enable-source-maps')).toContain('--opt');
  });
});
