import { describe, expect, it } from 'vitest';
import { compileMatch } from '../../src/mappings/routing/match.js';
import type { HookRequest } from '../../src/mappings/hook-request.js';

function request(path: string, payload: unknown, headers: Record<string, string> = {}): HookRequest {
  return { path, payload, headers, query: {}, url: `http://h/hooks/${path}` };
}

describe('match', () => {
  it('matches path exactly, with slashes trimmed on both sides', async () => {
    const match = compileMatch({ path: '/github/push/' });
    expect(await match(request('github/push', {}))).toBe(true);
    expect(await match(request('github', {}))).toBe(false);
    expect(await match(request('github/push/extra', {}))).toBe(false);
    expect(await match(request('GitHub/push', {}))).toBe(false);
  });

  it('matches source against payload.source', async () => {
    const match = compileMatch({ path: 'ingest', source: 'gmail' });
    expect(await match(request('ingest', { source: 'gmail' }))).toBe(true);
    expect(await match(request('ingest', { source: 'slack' }))).toBe(false);
    expect(await match(request('ingest', ['gmail']))).toBe(false);
    expect(await match(request('other', { source: 'gmail' }))).toBe(false);
  });

  it('routes by header or body with a JSONata predicate', async () => {
    const issues = compileMatch({ path: 'github', when: '$headers."x-github-event" = "issues" and action = "opened"' });
    expect(await issues(request('github', { action: 'opened' }, { 'x-github-event': 'issues' }))).toBe(true);
    expect(await issues(request('github', { action: 'closed' }, { 'x-github-event': 'issues' }))).toBe(false);
    expect(await issues(request('github', { action: 'opened' }, { 'x-github-event': 'push' }))).toBe(false);
    const openclaw = compileMatch({ when: 'headers.x-github-event' });
    expect(await openclaw(request('any', {}, { 'x-github-event': 'push' }))).toBe(true);
    expect(await openclaw(request('any', {}, {}))).toBe(false);
    const anyCase = compileMatch({ when: 'headers.X-GitHub-Event = "push"' });
    expect(await anyCase(request('any', {}, { 'x-github-event': 'push' }))).toBe(true);
  });

  it('treats empty results as false and a failing predicate as no match', async () => {
    expect(await compileMatch({ when: 'items' })(request('x', { items: [] }))).toBe(false);
    expect(await compileMatch({ when: 'items' })(request('x', { items: [0, 2] }))).toBe(true);
    expect(await compileMatch({ when: 'name + 1 > 2' })(request('x', { name: 'text' }))).toBe(false);
  });

  it('throws a syntax error at compile time', () => {
    expect(() => compileMatch({ when: 'a = ' })).toThrow();
  });

  it('matches every path when no condition is given', async () => {
    expect(await compileMatch(undefined)(request('anything', null))).toBe(true);
  });
});
