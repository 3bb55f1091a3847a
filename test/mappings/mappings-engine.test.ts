import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CompiledMapping } from '../../src/mappings/compiled-mapping.js';
import type { HookRequest } from '../../src/mappings/hook-request.js';
import { MappingsEngine } from '../../src/mappings/mappings-engine.js';
import { compileMatch } from '../../src/mappings/routing/match.js';

function request(path: string, payload: unknown = {}, headers: Record<string, string> = {}): HookRequest {
  return { path, payload, headers, query: {}, url: `http://h/hooks/${path}` };
}

/** a mapping that records every time its match is asked */
function mapping(id: string, match: Parameters<typeof compileMatch>[0], asked: string[]): CompiledMapping {
  const matches = compileMatch(match);
  return {
    id,
    path: match?.path,
    ...(matches.routeKey && { routeKey: matches.routeKey }),
    matches: (r) => {
      asked.push(id);
      return matches(r);
    },
    apply: async () => ({ type: 'skip' }),
  };
}

describe('mappings engine lookup', () => {
  it('keeps the configured order between path mappings and path-less ones', async () => {
    const asked: string[] = [];
    const engine = new MappingsEngine([
      mapping('a', { path: 'x', when: 'kind = "a"' }, asked),
      mapping('any', { when: 'kind = "any"' }, asked),
      mapping('b', { path: 'x' }, asked),
      mapping('c', { path: 'y' }, asked),
    ]);
    expect((await engine.find(request('x', { kind: 'any' })))?.id).toBe('any');
    expect((await engine.find(request('x', { kind: 'other' })))?.id).toBe('b');
    expect((await engine.find(request('y', { kind: 'any' })))?.id).toBe('any');
    expect((await engine.find(request('z', { kind: 'any' })))?.id).toBe('any');
    expect(await engine.find(request('z', { kind: 'none' }))).toBeUndefined();
  });

  it("asks only the mappings of the request's path: a thousand `when` mappings elsewhere are never evaluated", async () => {
    const asked: string[] = [];
    const many = Array.from({ length: 1000 }, (_, i) => mapping(`m${i}`, { path: `p${i}`, when: `n = ${i}` }, asked));
    const engine = new MappingsEngine(many);
    expect((await engine.find(request('p999', { n: 999 })))?.id).toBe('m999');
    expect(asked).toEqual(['m999']);
  });

  it('lists the signed mappings of a path', () => {
    const signature = { verify: () => ({ ok: true }) } as unknown as CompiledMapping['signature'];
    const engine = new MappingsEngine([
      { ...mapping('s1', { path: 'gh' }, []), signature },
      mapping('plain', { path: 'gh' }, []),
      { ...mapping('s2', { path: 'other' }, []), signature },
    ]);
    expect(engine.signedMappings('gh').map((m) => m.id)).toEqual(['s1']);
    expect(engine.signedMappings('none')).toEqual([]);
  });

  it('routes a thousand mappings on one path by their equalities: only the one that takes the request is asked', async () => {
    const asked: string[] = [];
    const fields = ['source', 'type', 'headers.x-kind'];
    const many = Array.from({ length: 1000 }, (_, i) => mapping(`m${i}`, { path: 'in', when: `${fields[i % 3]} = "v${i}"` }, asked));
    const engine = new MappingsEngine(many);
    expect((await engine.find(request('in', { source: 'v0', type: 'v999' }, { 'x-kind': 'v998' })))?.id).toBe('m0');
    asked.length = 0;
    expect((await engine.find(request('in', { type: 'v999' }, { 'x-kind': 'v998' })))?.id).toBe('m998');
    expect(asked).toEqual(['m998']);
    asked.length = 0;
    expect(await engine.find(request('in', { type: 'none' }))).toBeUndefined();
    expect(asked).toEqual([]);
  });

  it('keeps first-match order across indexed and unindexable predicates, and missing fields', async () => {
    const asked: string[] = [];
    const engine = new MappingsEngine([
      mapping('t1', { path: 'in', when: 'type = "y"' }, asked),
      mapping('free', { path: 'in', when: '$contains($string(note), "pick")' }, asked),
      mapping('t2', { path: 'in', when: 'type = "y" and n = 2' }, asked),
      mapping('s', { path: 'in', source: 'crm' }, asked),
      mapping('k', { path: 'in', when: 'headers.x-kind = "z"' }, asked),
      mapping('t3', { path: 'in', when: '"z" = type' }, asked),
      mapping('any', { path: 'in' }, asked),
    ]);
    expect((await engine.find(request('in', { type: 'y' })))?.id).toBe('t1');
    expect((await engine.find(request('in', { type: 'z', note: 'pick me' })))?.id).toBe('free');
    expect((await engine.find(request('in', { type: 'z' })))?.id).toBe('t3');
    expect((await engine.find(request('in', { source: 'crm', type: 'z' })))?.id).toBe('s');
    expect((await engine.find(request('in', {}, { 'x-kind': 'z' })))?.id).toBe('k');
    asked.length = 0;
    expect((await engine.find(request('in', {})))?.id).toBe('any');
    expect(asked).toEqual(['free', 'any']);
  });

  it('finds what a scan of every mapping in order finds, for any payload', async () => {
    const whens = [
      'type = "y"', 'type = "z"', 'type = 1', 'type = true', '(type = "y")', 'a.b = "x"', '$payload.a.b = "y"', 'headers.x-kind = "z"',
      '$headers.`x-kind` = "y"', 'type = "y" and a.b = "x"', 'a.b = "x" or type = "z"', 'type != "y"', '$exists(a)', 'type[0] = "y"',
      'n = 2', 'n = "2"', '"x" = a.b', 'type = "y" and $exists(n)', 'source = "crm"', '__proto__ = "y"',
    ];
    const mappings = [
      ...whens.map((when, i) => mapping(`w${i}`, { path: 'in', when }, [])),
      mapping('src', { path: 'in', source: 'crm' }, []),
      ...whens.map((when, i) => mapping(`v${i}`, { path: 'in', when }, [])),
    ];
    const engine = new MappingsEngine(mappings);
    const scalar = fc.oneof(fc.constantFrom('y', 'z', 'x', 'crm', '2', 'true'), fc.constantFrom(1, 2, 0), fc.boolean(), fc.constant(null));
    const field = fc.oneof(scalar, fc.array(scalar, { maxLength: 2 }), fc.record({ b: scalar }, { requiredKeys: [] }));
    const payload = fc.oneof(
      fc.record({ type: field, a: field, n: field, source: field }, { requiredKeys: [] }),
      fc.array(fc.record({ type: field }), { maxLength: 2 }),
      scalar,
    );
    await fc.assert(
      fc.asyncProperty(payload, fc.option(fc.constantFrom('y', 'z')), async (body, kind) => {
        const req = request('in', body, kind === null ? {} : { 'x-kind': kind });
        let scanned: string | undefined;
        for (const m of mappings) {
          if (await m.matches(req)) {
            scanned = m.id;
            break;
          }
        }
        expect((await engine.find(req))?.id).toBe(scanned);
      }),
      { numRuns: 500 },
    );
  });
});
