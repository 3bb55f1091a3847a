import { describe, expect, it, vi } from 'vitest';

/** a fresh copy of the module: its caches of checked texts start empty */
async function fresh() {
  vi.resetModules();
  return import('../../src/mappings/jsonata-expression.js');
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
