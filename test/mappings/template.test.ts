import { describe, expect, it } from 'vitest';
import { toJsonata } from '../../src/mappings/templates/jsonata-expression.js';
import { compileTemplate, TemplateSyntaxError } from '../../src/mappings/templates/template.js';
import { templateScope } from '../../src/mappings/templates/template-scope.js';
import type { HookRequest } from '../../src/mappings/hook-request.js';

function request(payload: unknown, extra: Partial<HookRequest> = {}): HookRequest {
  return { path: 'github', payload, headers: { 'x-github-event': 'push' }, query: { env: 'prod' }, url: 'http://h/hooks/github', ...extra };
}

const render = (source: string, req: HookRequest, now?: Date) => compileTemplate(source).render(templateScope(req, now));

const mail = {
  source: 'gmail',
  messages: [
    { id: 'm1', from: 'ada@example.com', subject: 'Hello', labels: ['INBOX', 'UNREAD'] },
    { id: 'm2', from: 'bob@example.com', subject: 'Again', labels: [] },
  ],
  repository: { full_name: 'acme/app', owner: { login: 'acme' } },
};

describe('templates', () => {
  it('renders OpenClaw-style references unchanged', async () => {
    const req = request(mail);
    expect(await render('{{payload.repository.full_name}}', req)).toBe('acme/app');
    expect(await render('{{ headers.x-github-event }}', req)).toBe('push');
    expect(await render('{{query.env}}', req)).toBe('prod');
    expect(await render('/{{path}}', req)).toBe('/github');
    expect(await render('{{now}}', req, new Date('2025-02-03T04:05:06Z'))).toBe('2025-02-03T04:05:06.000Z');
    expect(await render('{{messages[0].subject}} from {{messages[0].from}}', req)).toBe('Hello from ada@example.com');
    expect(await render('{{payload.messages[1].id}}', req)).toBe('m2');
    // OpenClaw also reads `.0` as an index, and header names in any case
    expect(await render('{{messages.1.subject}}|{{payload.messages.0.labels.1}}', req)).toBe('Again|UNREAD');
    expect(await render('{{headers.X-GitHub-Event}}', req)).toBe('push');
  });

  it('evaluates JSONata with $payload, $headers, $query, $path and $now bound', async () => {
    const req = request(mail);
    expect(await render('{{ $count(messages) }} new', req)).toBe('2 new');
    expect(await render('{{ $join(messages.subject, ", ") }}', req)).toBe('Hello, Again');
    expect(await render('{{ $headers."x-github-event" = "push" ? "pushed" : "other" }}', req)).toBe('pushed');
    expect(await render('{{ $uppercase($query.env) }}@{{ $path }}', req)).toBe('PROD@github');
    expect(await render('{{ $payload.repository.owner.login & "/" & $string($count($payload.messages)) }}', req)).toBe('acme/2');
    expect(await render('{{ {"a": {"b": 1}} }}', req)).toBe('{"a":{"b":1}}');
  });

  it('renders arrays and objects as JSON and missing values as empty', async () => {
    const req = request(mail);
    expect(await render('{{messages[0].labels}}', req)).toBe('["INBOX","UNREAD"]');
    expect(await render('{{repository.owner}}', req)).toBe('{"login":"acme"}');
    expect(await render('[{{messages[5].subject}}][{{payload.nothing.here}}][{{headers.x-missing}}]', req)).toBe('[][][]');
  });

  it('works when the payload itself is an array or a scalar', async () => {
    expect(await render('{{ $[0].id }} {{ $count($payload) }}', request([{ id: 'a' }, { id: 'b' }]))).toBe('a 2');
    expect(await render('got {{payload}}', request('text'))).toBe('got text');
  });

  it('never resolves __proto__, prototype or constructor', async () => {
    const payload = JSON.parse('{"__proto__": {"polluted": "yes"}, "a": {"constructor": "c", "prototype": "p", "b": 1}}');
    const req = request(payload);
    expect(await render('[{{__proto__.polluted}}][{{payload.__proto__}}][{{a.constructor}}][{{a.prototype}}][{{ $payload.constructor }}]', req)).toBe('[][][][][]');
    expect(await render('{{ $lookup(a, "constructor") }}{{ constructor.name }}{{ a.b.constructor.name }}', req)).toBe('');
    expect(await render('{{a}}', req)).toBe('{"b":1}');
    expect(await render('[{{ $keys($) }}][{{ $string($) }}][{{ $now.constructor }}][{{ $path.constructor.name }}][{{ $sift(a, function($v, $k) { $k = "constructor" }) }}]', req)).toBe(
      '[a][{"a":{"b":1}}][][][]',
    );
  });

  it('rewrites only simple references to JSONata', () => {
    expect(toJsonata('headers.x-github-event')).toBe('$headers.`x-github-event`');
    expect(toJsonata('payload.a[0].b-c')).toBe('$payload.a[0].`b-c`');
    expect(toJsonata('path')).toBe('$path');
    expect(toJsonata('path.x')).toBe('path.x');
    expect(toJsonata('a - b')).toBe('a - b');
    expect(toJsonata('headers.x-github-event = "issues" and payload.action = "x-payload.y"')).toBe(
      '$headers.`x-github-event` = "issues" and $payload.action = "x-payload.y"',
    );
    expect(toJsonata('$count(payload.items) > 1 and $payload.headers.a')).toBe('$count($payload.items) > 1 and $payload.headers.a');
    expect(toJsonata('payloadSize + query.n')).toBe('payloadSize + $query.n');
    expect(toJsonata('messages.0.subject')).toBe('messages[0].subject');
    expect(toJsonata('headers.X-GitHub-Event = "push" and payload.items.2.id')).toBe('$headers.`x-github-event` = "push" and $payload.items[2].id');
  });

  it('reports syntax errors at compile time', () => {
    expect(() => compileTemplate('Hi {{ a + }}')).toThrow(TemplateSyntaxError);
    expect(() => compileTemplate('Hi {{ a + }}')).toThrow(/\{\{ a \+ \}\}/);
    expect(() => compileTemplate('Hi {{ name')).toThrow(/unclosed/);
    expect(() => compileTemplate('Hi {{ }}')).toThrow(/empty/);
    expect(compileTemplate('no holes').dynamic).toBe(false);
  });

  it('compiles a text once: mappings repeating a template share it, and a faulty one is refused each time', async () => {
    const source = 'Issue #{{ issue.number }} in {{ repository.full_name }}';
    expect(compileTemplate(source)).toBe(compileTemplate(source));
    const payload = { issue: { number: 7 }, repository: { full_name: 'acme/app' } };
    expect(await render(source, request(payload))).toBe('Issue #7 in acme/app');
    expect(await render(source, request({ ...payload, issue: { number: 8 } }))).toBe('Issue #8 in acme/app');
    expect(() => compileTemplate('Hi {{ a + }}')).toThrow(TemplateSyntaxError);
    expect(() => compileTemplate('Hi {{ a + }}')).toThrow(TemplateSyntaxError);
  });
});
