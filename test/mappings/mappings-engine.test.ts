import { describe, expect, it } from 'vitest';
import type { CompiledMapping } from '../../src/mappings/compiled-mapping.js';
import type { HookRequest } from '../../src/mappings/hook-request.js';
import { MappingsEngine } from '../../src/mappings/mappings-engine.js';
import { compileMatch } from '../../src/mappings/match.js';

function request(path: string, payload: unknown = {}): HookRequest {
  return { path, payload, headers: {}, query: {}, url: `http://h/hooks/${path}` };
}

/** a mapping that records every time its match is asked */
function mapping(id: string, match: Parameters<typeof compileMatch>[0], asked: string[]): CompiledMapping {
  const matches = compileMatch(match);
  return {
    id,
    path: match?.path,
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
});
