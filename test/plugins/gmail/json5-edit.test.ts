import JSON5 from 'json5';
import { describe, expect, it } from 'vitest';
import { setJson5Path } from '../../../plugins/gmail/setup/json5-edit.js';

describe('JSON5 textual edits', () => {
  const text = `// head
{
  a: 1, // about a
  'quoted key': "x", /* block */
  nested: { keep: [1, 2] },
  empty: {},
}
`;

  it('replaces, inserts and creates paths, keeping comments', () => {
    let next = setJson5Path(text, ['a'], 2);
    next = setJson5Path(next, ['nested', 'added'], { deep: true });
    next = setJson5Path(next, ['empty', 'k'], 'v');
    next = setJson5Path(next, ['fresh', 'path'], ['gmail']);
    expect(JSON5.parse(next)).toEqual({ a: 2, 'quoted key': 'x', nested: { keep: [1, 2], added: { deep: true } }, empty: { k: 'v' }, fresh: { path: ['gmail'] } });
    for (const comment of ['// head', '// about a', '/* block */']) expect(next).toContain(comment);
  });

  it('inserts after a last member without a trailing comma', () => {
    const next = setJson5Path('{\n  a: 1 // c\n}\n', ['b'], 2);
    expect(JSON5.parse(next)).toEqual({ a: 1, b: 2 });
    expect(next).toContain('// c');
  });
});
