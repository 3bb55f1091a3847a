import { generateKeyPairSync } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import jsonata from 'jsonata';
import { parse as parseYaml } from 'yaml';
import { describe, expect, it } from 'vitest';
import { builtinPlugins } from '../helpers/builtins.js';
import { presetMappingSet } from '../../src/plugin-host/enabled-presets.js';
import { parseUrlEncoded } from '../../src/mappings/payload/form-payload.js';
import { compileExpression, NOT_READ, toJsonata } from '../../src/mappings/templates/jsonata-expression.js';
import { closingBraces } from '../../src/mappings/templates/template.js';
import { templateScope } from '../../src/mappings/templates/template-scope.js';
import type { HookRequest } from '../../src/mappings/hook-request.js';

/**
 * The synchronous evaluator (sync-expression.ts) against JSONata itself: every expression of every
 * preset and shipped mapping (its `match.when` and each `{{ }}` hole), on every fixture request of
 * it, evaluated both ways. Where the evaluator answers, JSONata gives the same value; where JSONata
 * throws, the evaluator must have left it to JSONata (so the error stays JSONata's, named by the caller).
 */
const root = fileURLToPath(new URL('../../', import.meta.url));
const NOW = new Date('2026-11-29T12:00:00.000Z');

interface FixtureCase {
  headers?: Record<string, string>;
  query?: Record<string, string>;
  payload?: unknown;
  form?: string;
}

function expressionsOf(value: unknown, key = '', out = new Set<string>()): Set<string> {
  if (typeof value === 'string') {
    if (key === 'when') out.add(value);
    for (let at = value.indexOf('{{'); at >= 0; at = value.indexOf('{{', at + 2)) {
      const close = closingBraces(value, at + 2);
      if (close < 0) break;
      out.add(value.slice(at + 2, close).trim());
      at = close;
    }
  } else if (Array.isArray(value)) value.forEach((item) => expressionsOf(item, key, out));
  else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) expressionsOf(v, k, out);
  return out;
}

function requestOf(testCase: FixtureCase, mappingPath: string): HookRequest {
  return {
    path: mappingPath,
    payload: testCase.form !== undefined ? parseUrlEncoded(testCase.form) : (testCase.payload ?? {}),
    headers: Object.fromEntries(Object.entries(testCase.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v])),
    query: testCase.query ?? {},
    url: `/hooks/${mappingPath}`,
  };
}

async function viaJsonata(expr: string, request: HookRequest): Promise<{ value?: unknown; error?: unknown }> {
  const scope = templateScope(request, NOW);
  try {
    return { value: await jsonata(toJsonata(expr)).evaluate(scope.payload, scope.bindings) };
  } catch (error) {
    return { error };
  }
}

/** both ways over every request; returns how many evaluations the synchronous path answered */
async function compareAll(exprs: Iterable<string>, requests: HookRequest[]): Promise<{ read: number; total: number; mismatches: string[] }> {
  let read = 0;
  let total = 0;
  const mismatches: string[] = [];
  for (const expr of exprs) {
    const compiled = compileExpression(expr);
    for (const request of requests) {
      total++;
      const sync = compiled.read(templateScope(request, NOW));
      const expected = await viaJsonata(expr, request);
      if (sync === NOT_READ) continue;
      read++;
      if (expected.error !== undefined) mismatches.push(`${expr}: JSONata threw ${(expected.error as Error).message ?? String(expected.error)}, the evaluator gave ${JSON.stringify(sync)}`);
      else if (!Object.is(sync, expected.value) && JSON.stringify(sync) !== JSON.stringify(expected.value)) mismatches.push(`${expr}: ${JSON.stringify(sync)} where JSONata gives ${JSON.stringify(expected.value)}`);
    }
  }
  return { read, total, mismatches };
}

const FIXTURE_SECRET = `whsec_${Buffer.from('fixture-secret').toString('base64')}`;
const SECRETS: Record<string, string> = {
  sendgrid: generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).publicKey.export({ format: 'der', type: 'spki' }).toString('base64'),
};
const presets = builtinPlugins.filter((p) => p.preset !== undefined);

function fixtureCases(dir: string): FixtureCase[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir).filter((f) => f.endsWith('.json')).flatMap((f) => JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')) as FixtureCase[]);
}

describe('the synchronous evaluator against JSONata', () => {
  it.each(presets.map((p) => [p.id, p] as const))('preset %s: every expression on every fixture', async (id, plugin) => {
    const options = Object.fromEntries(
      (plugin.preset!.requires ?? []).map((key: string) => [key, key === 'secret' ? (SECRETS[id] ?? FIXTURE_SECRET) : key === 'publicKey' ? '1e53c0e90d403cbe6a84503a7fd7ac31ead05e4316fa8d850c842d1d0400f6bd' : key === 'webhookId' ? '8PT597110X687430LFIXTURE' : `fixture-${key}`]),
    );
    const { mappings } = presetMappingSet(plugin, { name: id, ...options });
    const exprs = expressionsOf(mappings!.map(({ auth: _auth, ...rest }) => rest));
    const mappingPath = (mappings![0] as { match?: { path?: string } }).match?.path ?? id;
    const requests = fixtureCases(path.join(root, 'plugins', id, 'fixtures')).map((c) => requestOf(c, mappingPath));
    const { mismatches } = await compareAll(exprs, requests);
    expect(mismatches).toEqual([]);
  });

  it('the shipped mappings: every expression on every fixture', async () => {
    for (const file of fs.readdirSync(path.join(root, 'mappings')).filter((f) => f.endsWith('.yaml'))) {
      const exprs = expressionsOf(parseYaml(fs.readFileSync(path.join(root, 'mappings', file), 'utf8')));
      const requests = (JSON.parse(fs.readFileSync(path.join(root, 'mappings', file.replace(/\.yaml$/, '.test.json')), 'utf8')) as (FixtureCase & { path?: string })[]).map((c) => requestOf(c, c.path ?? ''));
      const { mismatches } = await compareAll(exprs, requests);
      expect(mismatches, file).toEqual([]);
    }
  });

  it("answers the github preset's expressions without JSONata on its fixtures", async () => {
    const github = presets.find((p) => p.id === 'github')!;
    const { mappings } = presetMappingSet(github, { name: 'github', secret: 'x' });
    const requests = fixtureCases(path.join(root, 'plugins', 'github', 'fixtures')).map((c) => requestOf(c, 'github'));
    const exprs = [...expressionsOf(mappings!.map(({ auth: _auth, ...rest }) => rest))].filter((e) => !e.includes('$replace'));
    const { read, total } = await compareAll(exprs, requests);
    expect(read).toBe(total);
  });

  const shapes: [string, unknown][] = [
    ['a.b', { a: [{ b: 1 }, { b: 2 }] }],
    ['a.b', { a: [{ b: [1] }, { b: 2 }] }],
    ['a', { a: [] }],
    ['$count(a)', { a: [] }],
    ['$count(a.b)', { a: [{ b: [1, 2] }, { b: 3 }] }],
    ['$join(a.b, ",")', { a: [{ b: 'x' }, { b: 'y' }] }],
    ['$join(a.b, ",")', { a: [{ b: 'x' }, { b: 2 }] }],
    ['$join(a, ",")', { a: [] }],
    ['a & b', { a: 1.1 + 2.2, b: true }],
    ['a & b', { a: null, b: { c: 1 } }],
    ['a = b', { a: { c: 1 }, b: { c: 1 } }],
    ['a != b', { a: 1 }],
    ['a > b', { a: 1, b: 'x' }],
    ['a > b', { a: 2, b: 1 }],
    ['a < b', { b: 1 }],
    ['a in ["x", "y"]', { a: 'y' }],
    ['"y" in a', { a: ['x', 'y'] }],
    ['a ? "t" : "f"', { a: {} }],
    ['a ? "t" : "f"', { a: { __proto__: null, x: 1 } }],
    ['a ? "t"', { a: 0 }],
    ['a or b', { a: [0, ''], b: [0, 'x'] }],
    ['$substring(a, -3, 2)', { a: 'hello' }],
    ['$substring(a, 1, 2)', { a: 'a😀bc' }],
    ['$length(a)', { a: 'a😀bc' }],
    ['$substring(a, 0, 2)', { a: 5 }],
    ['$substringBefore(a, "\\n")', { a: 'one\ntwo' }],
    ['$substringAfter(a, "-")', { a: 'x-y-z' }],
    ['$lowercase(a) & $uppercase(b)', { a: 'AbC', b: 'dEf' }],
    ['$trim(a)', { a: '  a \n b  ' }],
    ['$not(a)', {}],
    ['$exists(a.b)', { a: { b: null } }],
    ['$string(a)', { a: 1e21 }],
    ['$boolean(a)', { a: [[]] }],
    ['(a; b)', { a: 1, b: 2 }],
    ['constructor', {}],
    ['a.constructor.name', { a: {} }],
    ['$payload.a & $path & $now', { a: 'x' }],
  ];
  it.each(shapes)('%s on %j', async (expr, payload) => {
    const request: HookRequest = { path: 'p', payload: JSON.parse(JSON.stringify(payload)), headers: { 'x-a': 'h' }, query: {}, url: '/hooks/p' };
    const { mismatches } = await compareAll([expr], [request]);
    expect(mismatches).toEqual([]);
  });
});
