import { expect, it } from 'vitest';
import { capText } from '../../src/tools/result-cap.js';

it('cuts a long result once, with a note; a result capped already (by its MCP server) is not cut again by the turn', () => {
  const capped = capText('x'.repeat(100), 10);
  expect(capped).toBe(`${'x'.repeat(10)}\n[result cut at 10 of 100 characters]`);
  expect(capText(capped, 10)).toBe(capped);
  // capped at another limit: cut to this one
  expect(capText(capText('y'.repeat(100), 50), 10)).toBe(`${'y'.repeat(10)}\n[result cut at 10 of 87 characters]`);
  expect(capText('short', 10)).toBe('short');
});
