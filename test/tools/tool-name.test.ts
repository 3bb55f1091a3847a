import { describe, expect, it } from 'vitest';
import { toolName } from '../../src/tools/tool-name.js';

const OPENAI_NAME = /^[A-Za-z0-9_-]{1,64}$/;

describe('toolName', () => {
  it('is <server>__<tool>, as it is when the name is within the rules', () => {
    expect(toolName('github', 'create_issue')).toBe('github__create_issue');
    expect(toolName('everything', 'get-sum')).toBe('everything__get-sum');
  });

  it('makes characters a function name cannot have `_`', () => {
    expect(toolName('fs', 'read.file')).toBe('fs__read_file');
    expect(toolName('fs', 'lire fichier é')).toBe('fs__lire_fichier__');
  });

  it('cuts a long name and ends it with a short hash of the original: stable, and distinct for names sharing their start', () => {
    const long = `${'a'.repeat(80)}_one`;
    const other = `${'a'.repeat(80)}_two`;
    expect(toolName('srv', long)).toMatch(OPENAI_NAME);
    expect(toolName('srv', long)).toHaveLength(64);
    expect(toolName('srv', long)).toBe(toolName('srv', long));
    expect(toolName('srv', long)).not.toBe(toolName('srv', other));
    expect(toolName('srv', long).startsWith('srv__aaaa')).toBe(true);
  });

  it('adds the hash when asked, for two tools of a server that would share a readable name', () => {
    expect(toolName('fs', 'read.file', true)).toMatch(/^fs__read_file_[0-9a-f]{8}$/);
    expect(toolName('fs', 'read.file', true)).not.toBe(toolName('fs', 'read_file', true));
  });
});
