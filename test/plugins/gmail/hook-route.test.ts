import { describe, expect, it } from 'vitest';
import { hookRouteFault } from '../../../plugins/gmail/watcher/watcher-from-config.js';

const host = (hooks: { presets?: string[]; mappings?: { match?: { path?: string; source?: string } }[] }) =>
  ({ hooks: { enabled: true, token: 't', path: '/hooks', presets: [], mappings: [], ...hooks }, gateway: { host: '127.0.0.1', port: 8787 } }) as never;

describe('whether mail posted to <hooks.path>/gmail finds a mapping', () => {
  it('names the fix when neither the preset nor a mapping handles path gmail', () => {
    expect(hookRouteFault(host({}))).toContain('hooks.presets: add "gmail"');
    expect(hookRouteFault(host({ presets: ['github'], mappings: [{ match: { path: 'github' } }] }))).toContain('hooks.presets: add "gmail"');
  });

  it('is content with the preset, a mapping for path gmail, or one matching any path', () => {
    expect(hookRouteFault(host({ presets: ['gmail'] }))).toBeUndefined();
    expect(hookRouteFault(host({ mappings: [{ match: { path: '/gmail/' } }] }))).toBeUndefined();
    expect(hookRouteFault(host({ mappings: [{ match: { source: 'gmail' } }] }))).toBeUndefined();
  });
});
