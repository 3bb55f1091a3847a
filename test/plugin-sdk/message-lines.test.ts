import { describe, expect, it } from 'vitest';
import { messageLines } from '../../src/plugin-sdk/message-lines.js';
import { compileTemplate } from '../../src/mappings/templates/template.js';
import { templateScope } from '../../src/mappings/templates/template-scope.js';

const render = (lines: string[], payload: unknown) =>
  compileTemplate(messageLines(lines)).render(templateScope({ path: 'x', payload, headers: { 'x-event': 'push' }, query: {}, url: 'http://h/hooks/x' }));

describe('messageLines', () => {
  const lines = ['Issue {{ issue.key }}', '{{ issue.url }}', 'Status {{ issue.status }}', '', '{{ issue.body }}'];

  it('keeps every line when each has its value', async () => {
    expect(await render(lines, { issue: { key: 'A-1', url: 'https://x/A-1', status: 'open', body: 'It broke.' } })).toBe('Issue A-1\nhttps://x/A-1\nStatus open\n\nIt broke.');
  });

  it('leaves out a one-hole line that renders empty, and the blank lines before it', async () => {
    expect(await render(lines, { issue: { key: 'A-1', status: 'open' } })).toBe('Issue A-1\nStatus open');
    expect(await render(lines, { issue: { key: 'A-1', url: null, status: 'open', body: '  ' } })).toBe('Issue A-1\nStatus open');
  });

  it('renders a hole as a template does: a number as itself, an object as JSON, headers by name', async () => {
    expect(await render(['a', '{{ n }}', '{{ o }}', '{{ headers.x-event }}'], { n: 0, o: { k: 1 } })).toBe('a\n0\n{"k":1}\npush');
  });

  it('keeps a line with text around its hole as written', async () => {
    expect(await render(['a', 'Status {{ s }}'], {})).toBe('a\nStatus ');
  });
});
