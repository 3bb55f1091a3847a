import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CliIo } from '../../src/cli/io/cli-io.js';
import { main } from '../helpers/builtins.js';
import { baseConfig, tempDir } from '../helpers/start-herald.js';

function captureIo() {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = { out: (l) => out.push(l), err: (l) => err.push(l), stdout: process.stdout, stderr: process.stderr };
  return { io, out, err };
}

function project(files: Record<string, string>) {
  const dir = tempDir('herald-cli-');
  const config = baseConfig({ hooks: { transformTimeoutMs: 300 } });
  fs.writeFileSync(path.join(dir, 'herald.json'), JSON.stringify(config));
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), text);
  }
  return dir;
}

const files = {
  'mappings/orders.yaml': `
- id: order
  match: { path: shop/orders, when: 'headers.x-shop-event = "created"' }
  name: "Order {{id}}"
  sessionKey: "hook:order:{{id}}"
  messageTemplate: "New order {{id}} for {{ $sum(items.price) }} ({{query.region}})"
- id: order-skip
  match: { path: shop/orders }
  transform: { module: skip.mjs }
- id: order-broken
  match: { path: shop/broken }
  messageTemplate: x
  transform: { module: broken.mjs }
`,
  'transforms/skip.mjs': 'export default () => null;',
  'transforms/broken.mjs': 'export default () => { throw new Error("no stock service"); };',
  'order.json': JSON.stringify({ id: 'o-7', items: [{ price: 3 }, { price: 4.5 }] }),
};

async function run(dir: string, ...args: string[]) {
  const capture = captureIo();
  const code = await main(['hooks', 'test', ...args, '--config', path.join(dir, 'herald.json')], capture.io);
  return { code, ...capture };
}

describe('herald hooks test', () => {
  it('prints the resolved action, running templates with headers and query, and touches no store', async () => {
    const dir = project(files);
    const result = await run(dir, 'shop/orders', '--payload', path.join(dir, 'order.json'), '--header', 'X-Shop-Event: created', '--query', 'region=eu');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.out.join('\n'))).toMatchObject({
      kind: 'agent',
      name: 'Order o-7',
      sessionKey: 'hook:order:o-7',
      message: 'New order o-7 for 7.5 (eu)',
      source: { mappingId: 'order', path: 'shop/orders' },
    });
    expect(result.err).toContain('mapping: order');
    expect(fs.existsSync(path.join(dir, 'data'))).toBe(false);
  });

  it('prints {"skip":true} when the transform returns null', async () => {
    const dir = project(files);
    const result = await run(dir, 'shop/orders', '--payload', path.join(dir, 'order.json'));
    expect(result.code).toBe(0);
    expect(JSON.parse(result.out.join('\n'))).toEqual({ skip: true });
  });

  it('exits non-zero with the reason when nothing matches or the mapping fails', async () => {
    const dir = project(files);
    const none = await run(dir, 'shop/refunds', '--payload', path.join(dir, 'order.json'));
    expect(none.code).toBe(1);
    expect(none.err.join('\n')).toContain('404 no hook mapping for "shop/refunds"');
    const broken = await run(dir, 'shop/broken', '--payload', path.join(dir, 'order.json'));
    expect(broken.code).toBe(1);
    expect(broken.err.join('\n')).toMatch(/500 hook mapping failed\n {2}reason: transform broken\.mjs: no stock service\n {2}at: broken\.mjs:1/);
    const usage = await run(dir, 'shop/orders');
    expect(usage.code).toBe(2);
    const badHeader = await run(dir, 'shop/orders', '--payload', path.join(dir, 'order.json'), '--header', 'no-colon');
    expect(badHeader.code).toBe(2);
    expect(badHeader.err.join('\n')).toContain('--header "no-colon" must look like NAME:VALUE');
  });

  it('runs a fixture file and reports each case', async () => {
    const dir = project({
      ...files,
      'mappings/orders.test.json': JSON.stringify([
        { name: 'created', headers: { 'x-shop-event': 'created' }, query: { region: 'us' }, payload: { id: 'o-1', items: [{ price: 2 }] }, expect: { kind: 'agent', message: 'New order o-1 for 2 (us)' } },
        { name: 'wrong on purpose', payload: { id: 'o-2' }, expect: { kind: 'agent' } },
      ]),
    });
    const result = await run(dir, '--fixtures', path.join(dir, 'mappings/orders.test.json'));
    expect(result.code).toBe(1);
    expect(result.out).toEqual([
      'ok   orders.test.json #1 (created)',
      'FAIL orders.test.json #2 (wrong on purpose)',
      '       kind: expected "agent", got undefined',
      // what the mapping did instead, beside what the fixture expected
      '       happened: skipped (204)',
    ]);
  });
});

describe('herald hooks test: a direct tool call', () => {
  /** a mapping that closes a ticket when an order is cancelled; its server is never reached by a dry run */
  function toolProject(fixtures: unknown[]) {
    const dir = tempDir('herald-cli-');
    const config = baseConfig({ tools: { mcpServers: { tickets: { url: 'http://127.0.0.1:9/mcp' } } } });
    fs.writeFileSync(path.join(dir, 'herald.json'), JSON.stringify(config));
    fs.mkdirSync(path.join(dir, 'mappings'));
    fs.writeFileSync(
      path.join(dir, 'mappings/cancel.yaml'),
      `- id: cancel
  match: { path: shop/cancel }
  action: tool
  tool: tickets__close_ticket
  arguments: { id: "order-{{ id }}", reason: "{{ reason }}" }
`,
    );
    fs.writeFileSync(path.join(dir, 'mappings/cancel.test.json'), JSON.stringify(fixtures));
    fs.writeFileSync(path.join(dir, 'cancel.json'), JSON.stringify({ id: 7, reason: 'out of stock' }));
    return dir;
  }

  it('prints the resolved call and its grant decision, and makes nothing', async () => {
    const dir = toolProject([]);
    const result = await run(dir, 'shop/cancel', '--payload', path.join(dir, 'cancel.json'));
    expect(result.code).toBe(0);
    expect(JSON.parse(result.out.join('\n'))).toMatchObject({ kind: 'tool', call: { tool: 'tickets__close_ticket', arguments: { id: 'order-7', reason: 'out of stock' } } });
    expect(result.err).toContain('tool call (not made): tickets__close_ticket: runs at once if it is read-only; a write waits for a person (not granted by the mapping)');
  });

  it('fixtures assert on the resolved call: its arguments and its decision; a wrong argument is named', async () => {
    const dir = toolProject([
      { name: 'cancelled', payload: { id: 7, reason: 'out of stock' }, expect: { kind: 'tool', toolCall: { tool: 'tickets__close_ticket', arguments: { id: 'order-7', reason: 'out of stock' } } } },
      { name: 'decision', payload: { id: 8, reason: 'late' }, expect: { toolCall: { decision: 'tickets__close_ticket: runs at once if it is read-only; a write waits for a person (not granted by the mapping)' } } },
      { name: 'wrong on purpose', payload: { id: 9, reason: 'late' }, expect: { toolCall: { arguments: { id: 'order-10', reason: 'late' } } } },
    ]);
    const result = await run(dir, '--fixtures', path.join(dir, 'mappings/cancel.test.json'));
    expect(result.code).toBe(1);
    expect(result.out.slice(0, 4)).toEqual([
      'ok   cancel.test.json #1 (cancelled)',
      'ok   cancel.test.json #2 (decision)',
      'FAIL cancel.test.json #3 (wrong on purpose)',
      expect.stringMatching(/^ {7}toolCall: expected \{"arguments":\{"id":"order-10","reason":"late"\}\}, got \{"tool":"tickets__close_ticket","arguments":\{"id":"order-9","reason":"late"\},"decision":/),
    ]);
  });
});

describe('herald config check', () => {
  it('names the mapping and the template of a syntax error', async () => {
    const dir = project({ 'mappings/bad.yaml': 'id: bad\nmatch: { path: bad }\nmessageTemplate: "Hi {{ name + }}"\n' });
    const capture = captureIo();
    const code = await main(['config', 'check', '--config', path.join(dir, 'herald.json')], capture.io);
    expect(code).toBe(1);
    expect(capture.err.join('\n')).toMatch(/mapping "bad" \(.*bad\.yaml\[0\]\): messageTemplate: template error in "Hi \{\{ name \+ \}\}"/);
  });
});
