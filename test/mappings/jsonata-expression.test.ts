import { describe, expect, it, vi } from 'vitest';

/** a fresh copy of the module: its caches of checked texts start empty */
async function fresh() {
  vi.resetModules();
  return import('../../src/mappings/templates/jsonata-expression.js');
}

/** what compileExpression gives for a text, or the fault it throws */
function outcome(module: Awaited<ReturnType<typeof fresh>>, text: string): unknown {
  try {
    return { equality: module.compileExpression(text).equality };
  } catch (error) {
    return { fault: module.describeJsonataError(error) };
  }
}

const PREDICATES = [
  'type = "push"',
  'headers.x-kind = "deploy"',
  'headers.X-GitHub-Event = "issues" and payload.action = "opened"',
  'action = "opened" and repository.full_name = "acme/export" and 7 >= 0',
  '(source = "a(b]" and kind = "say \\"hi)\\"")',
  '$payload.items[0].kind = "x" and $count(items) > 1',
  '"released" = status',
  '{"a": [1, 2]}.a[1] = 2',
  'payload.`odd name` = "y"',
  '$exists(sender) ? sender.login = "octocat" : false',
  'function($x) { $x + 1 }(1) = 2',
];

describe('checkExpressions', () => {
  it('checks predicates together, each with the equality it has when parsed alone', async () => {
    const alone = await fresh();
    const expected = PREDICATES.map((text) => outcome(alone, text));
    const batched = await fresh();
    expect(batched.checkExpressions(PREDICATES)).toBe(PREDICATES.length);
    expect(PREDICATES.map((text) => outcome(batched, text))).toEqual(expected);
    expect(expected.filter((o) => (o as { equality?: unknown }).equality).length).toBeGreaterThan(5);
  });

  it('leaves a text that only parses beside others to be parsed alone, with its own fault and position', async () => {
    // inside `[(…), (…)]` these would parse, reaching past their parentheses: never checked together
    const breakouts = ['1) + (2', 'x = 1) or (y = 2', '"a") , ("b'];
    const faulty = [...breakouts, 'a = "open', 'kind = ', 'a b', '', "kind = 'it\\'s'"];
    const alone = await fresh();
    const expected = faulty.map((text) => outcome(alone, text));
    expect(expected.every((o) => (o as { fault?: string }).fault)).toBe(true);
    const batched = await fresh();
    expect(batched.checkExpressions([...breakouts, ...PREDICATES])).toBe(PREDICATES.length);
    batched.checkExpressions(faulty);
    expect(faulty.map((text) => outcome(batched, text))).toEqual(expected);
  });

  it('parses alone what reads differently in context (a regex, a block, the parent operator)', async () => {
    const contextual = ['$match(subject, /re(lease/) != []', '($a := 1; $a = 1)', 'a.b.%.c = 1', 'items@$i = 1', 'a/b = 2'];
    const alone = await fresh();
    const expected = contextual.map((text) => outcome(alone, text));
    const batched = await fresh();
    expect(batched.checkExpressions(contextual)).toBe(0);
    expect(contextual.map((text) => outcome(batched, text))).toEqual(expected);
  });
});

describe('a plain field reference', () => {
  const EXPRESSIONS = ['action', 'issue.number', 'payload.issue.title', 'headers.x-github-event', 'headers.X-Kind', 'query.page', 'a.b.c', 'a.__proto__', 'a.constructor', 'flag', 'nothing.here', 'issue', 'items.kind', 'n', 'nil', 'text.length'];
  const PAYLOADS: unknown[] = [
    { action: 'opened', issue: { number: 4217, title: 'Export fails' }, flag: false, n: 0, nil: null, text: 'abc' },
    { a: { b: { c: 'deep' } }, items: [{ kind: 'x' }, { kind: 'y' }], flag: true, n: -1.5 },
    { a: { b: [{ c: 1 }, { c: 2 }] }, issue: [{ number: 1 }], action: ['opened'] },
    JSON.parse('{"a": {"__proto__": {"polluted": 1}, "constructor": "c"}, "action": {"x": 1}}'),
    [{ action: 'in an array' }],
    'a string',
    {},
  ];

  it('reads what JSONata would evaluate over the sanitised copy, and leaves arrays, objects and null to JSONata', async () => {
    const module = await fresh();
    const { templateScope } = await import('../../src/mappings/templates/template-scope.js');
    let read = 0;
    for (const payload of PAYLOADS) {
      const request = { path: 'p', payload, headers: { 'x-github-event': 'issues', 'x-kind': 'k' }, query: { page: '2' }, url: 'http://h/hooks/p' };
      for (const text of EXPRESSIONS) {
        const expression = module.compileExpression(text);
        const scope = templateScope(request);
        // what JSONata gives over the sanitised copy, the scope without its request
        const evaluated = await expression.evaluate({ payload: scope.payload, bindings: scope.bindings });
        const value = expression.read(scope);
        if (value === module.NOT_READ) continue;
        read++;
        expect({ text, payload, value }).toEqual({ text, payload, value: evaluated });
        expect(await expression.evaluate(scope)).toEqual(evaluated);
      }
    }
    // the common case is read: scalars at the end of object paths
    expect(read).toBeGreaterThan(40);
  });

  it('is not read when it is more than the shapes evaluated synchronously (a filter, an array), or when the scope has no request', async () => {
    const module = await fresh();
    const scope = { payload: { a: 'x' }, bindings: { payload: { a: 'x' }, headers: {}, query: {}, path: 'p', now: '' } };
    expect(module.compileExpression('a').read(scope)).toBe(module.NOT_READ);
    const { templateScope } = await import('../../src/mappings/templates/template-scope.js');
    const request = { path: 'p', payload: { a: 'x', items: ['y', 'z'] }, headers: {}, query: {}, url: 'http://h/hooks/p' };
    for (const text of ['items[0]', 'items', '$replace(a, /x/, "y")']) expect(module.compileExpression(text).read(templateScope(request))).toBe(module.NOT_READ);
    // the shapes sync-expression.ts follows are read, as JSONata evaluates them
    const at = new Date('2026-11-29T12:00:00.000Z');
    const read = (text: string) => module.compileExpression(text).read(templateScope(request, at));
    expect([read('$uppercase(a)'), read('a & "!"'), read('$now'), read('$path'), read('true')]).toEqual(['X', 'x!', '2026-11-29T12:00:00.000Z', 'p', true]);
  });
});
