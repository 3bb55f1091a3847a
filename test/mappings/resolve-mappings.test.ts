import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfigValue } from '../helpers/builtins.js';
import { ConfigError } from '../../src/errors.js';
import { HeraldError } from '../../src/errors.js';
import { MappingsEngine } from '../../src/mappings/mappings-engine.js';
import { resolveMappings } from '../../src/mappings/loading/resolve-mappings.js';
import { tempDir } from '../helpers/start-herald.js';

/** a config folder with the given files, loaded and resolved like the gateway does */
async function resolve(hooks: Record<string, unknown>, files: Record<string, string> = {}, rest: Record<string, unknown> = {}) {
  const dir = tempDir('herald-mappings-');
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), text);
  }
  const loaded = await loadConfigValue({ hooks: { enabled: true, token: 'hook-token-0123456789abcdef', ...hooks }, ...rest }, path.join(dir, 'herald.json'));
  return resolveMappings(loaded, { config: loaded.config, channelNames: loaded.plugins.channelNames() });
}

async function faultsOf(promise: Promise<unknown>): Promise<string[]> {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  expect(error).toBeInstanceOf(ConfigError);
  return (error as ConfigError).faults;
}

const req = (p: string, payload: unknown = {}, headers: Record<string, string> = {}) => ({ path: p, payload, headers, query: {}, url: `http://h/hooks/${p}` });

describe('resolveMappings', () => {
  it('orders config mappings, then folder files by name, then presets (less those on a path of yours); ids default to mapping-<n>', async () => {
    const mappings = await resolve(
      { mappings: [{ match: { path: 'gmail' }, messageTemplate: 'mine' }], presets: ['gmail'] },
      {
        'mappings/b.yaml': '- match: { path: b }\n  messageTemplate: "b"\n- id: b-two\n  match: { path: b2 }\n  messageTemplate: "b2"\n',
        'mappings/a.json': JSON.stringify({ match: { path: 'a' }, messageTemplate: 'a' }),
        'mappings/a.test.json': JSON.stringify([{ payload: {}, expect: {} }]),
        'mappings/c.json5': "{ id: 'c', match: { path: 'c' }, action: 'wake', textTemplate: 'c' }",
        'mappings/empty.yml': '# nothing yet\n',
        'mappings/notes.md': 'not a mapping',
        'mappings/examples/ignored.yaml': 'match: { path: ignored }\nmessageTemplate: x\n',
      },
    );
    // the gmail preset's path is served by hooks.mappings[0]: the preset's mapping is shadowed
    expect(mappings.map((m) => m.id)).toEqual(['mapping-1', 'mapping-2', 'mapping-3', 'b-two', 'c']);
    const engine = new MappingsEngine(mappings);
    const first = await engine.handle(req('gmail', { messages: [{ id: 'x' }] }));
    expect(first).toMatchObject({ mappingId: 'mapping-1', type: 'action', action: { message: 'mine' } });
  });

  it('applies hooks.gmail to the gmail preset', async () => {
    const mappings = await resolve(
      { presets: ['gmail'], gmail: { model: 'fast', thinking: 'low', allowUnsafeExternalContent: true } },
      {},
      { models: { aliases: { fast: 'embedded/extractive' } } },
    );
    const outcome = await new MappingsEngine(mappings).handle(
      req('gmail', { source: 'gmail', messages: [{ id: 'm1', from: 'ada@example.com', subject: 'Hi', snippet: 'snip', body: 'Body text' }] }),
    );
    expect(outcome).toMatchObject({
      type: 'action',
      action: {
        kind: 'agent',
        name: 'Gmail',
        sessionKey: 'hook:gmail:m1',
        message: 'New email from ada@example.com\nSubject: Hi\nsnip\nBody text',
        model: 'fast',
        thinking: 'low',
        allowUnsafeExternalContent: true,
        source: { mappingId: 'gmail', path: 'gmail' },
      },
    });
  });

  it('names the file and the key of a fault in a folder file', async () => {
    const faults = await faultsOf(resolve({}, { 'mappings/bad.yaml': 'match: { pth: x }\nmessageTemplate: 3\n' }));
    expect(faults.some((f) => f.includes('bad.yaml[0].match.pth: unknown key'))).toBe(true);
    expect(faults.some((f) => f.includes('bad.yaml[0].messageTemplate'))).toBe(true);
  });

  it('refuses duplicate ids, naming both places', async () => {
    const faults = await faultsOf(
      resolve({ mappings: [{ id: 'gh', match: { path: 'a' } }] }, { 'mappings/x.json': JSON.stringify({ id: 'gh', match: { path: 'b' } }) }),
    );
    expect(faults).toEqual([expect.stringMatching(/mapping "gh" \(.*x\.json\[0\]\): duplicate mapping id \(also used by hooks\.mappings\[0\]\)/)]);
  });

  it('fails on template and predicate syntax errors, naming the mapping and the template', async () => {
    const faults = await faultsOf(
      resolve({ mappings: [{ id: 'broken', match: { path: 'x', when: 'a = ' }, messageTemplate: 'Hi {{ a + }}', name: '{{ ok }}' }] }),
    );
    expect(faults).toEqual([
      expect.stringMatching(/^mapping "broken" \(hooks\.mappings\[0\]\): match\.when: syntax error in "a = "/),
      expect.stringMatching(/^mapping "broken" \(hooks\.mappings\[0\]\): messageTemplate: template error in "Hi \{\{ a \+ \}\}": \{\{ a \+ \}\}/),
    ]);
  });

  it('refuses static values that can never pass: model outside the allowlist, thinking, channel, reserved paths, wake without text', async () => {
    const faults = await faultsOf(
      resolve(
        {
          mappings: [
            { id: 'm', match: { path: 'm' }, model: 'embedded/other' },
            { id: 't', match: { path: 't' }, thinking: 'extreme', channel: 'pigeon' },
            { id: 'w', match: { path: 'wake' }, action: 'wake' },
          ],
        },
        {},
        { agents: { defaults: { models: ['embedded/extractive'] } } },
      ),
    );
    expect(faults.join('\n')).toMatch(/mapping "m".*model: "embedded\/other" is not in agents\.defaults\.models/);
    expect(faults.join('\n')).toMatch(/mapping "t".*thinking: "extreme" is not one of/);
    expect(faults.join('\n')).toMatch(/mapping "t".*channel: "pigeon" is not one of last/);
    expect(faults.join('\n')).toMatch(/mapping "w".*match\.path: "wake" is the built-in \/wake endpoint/);
    expect(faults.join('\n')).toMatch(/mapping "w".*a wake mapping needs a textTemplate/);
  });

  it('refuses an invalid JSON Schema at load', async () => {
    const faults = await faultsOf(resolve({ mappings: [{ id: 's', match: { path: 's' }, schema: { type: 'objekt' } }] }));
    expect(faults[0]).toMatch(/mapping "s".*schema: not a valid JSON Schema/);
  });

  it('refuses transforms outside transformsDir at start: ../, absolute, symlink out, missing export', async () => {
    const dir = tempDir('herald-outside-');
    fs.writeFileSync(path.join(dir, 'evil.mjs'), 'export default () => ({})');
    const files = { 'transforms/ok.mjs': 'export const other = 1; export default () => ({})', 'outside.mjs': 'export default () => ({})' };
    const attempt = (module: string, exportName?: string) =>
      faultsOf(resolve({ mappings: [{ id: 'x', match: { path: 'x' }, transform: { module, ...(exportName && { export: exportName }) } }] }, files));
    expect((await attempt('../outside.mjs'))[0]).toMatch(/mapping "x".*transform: "\.\.\/outside\.mjs" is outside hooks\.transformsDir/);
    expect((await attempt(path.join(dir, 'evil.mjs')))[0]).toMatch(/not an absolute path/);
    expect((await attempt('ok.mjs', 'other'))[0]).toMatch(/export "other" is not a function/);
    const linkDir = tempDir('herald-link-');
    fs.mkdirSync(path.join(linkDir, 'transforms'));
    fs.symlinkSync(path.join(dir, 'evil.mjs'), path.join(linkDir, 'transforms', 'link.mjs'));
    const loaded = await loadConfigValue(
      { hooks: { enabled: true, token: 'hook-token-0123456789abcdef', mappings: [{ id: 'l', match: { path: 'l' }, transform: { module: 'link.mjs' } }] } },
      path.join(linkDir, 'herald.json'),
    );
    const faults = await faultsOf(resolveMappings(loaded, { config: loaded.config, channelNames: ['last'] }));
    expect(faults[0]).toMatch(/mapping "l".*symlinks may not leave the folder/);
  });
});

describe('schema errors', () => {
  it('answers a payload that fails the JSON Schema with ajv paths and messages', async () => {
    const mappings = await resolve({
      mappings: [
        {
          id: 'typed',
          match: { path: 'typed' },
          schema: { type: 'object', required: ['event'], properties: { event: { type: 'string' }, email: { type: 'string', format: 'email' } }, additionalProperties: false },
          messageTemplate: '{{event}}',
        },
      ],
    });
    const engine = new MappingsEngine(mappings);
    const error = await engine.handle(req('typed', { email: 'nope', extra: 1 })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HeraldError);
    expect((error as HeraldError).status).toBe(400);
    expect((error as HeraldError).details).toEqual(
      expect.arrayContaining([
        { path: '/', message: "must have required property 'event'" },
        { path: '/', message: 'must NOT have additional properties (extra)' },
        { path: '/email', message: 'must match format "email"' },
      ]),
    );
    expect(await engine.handle(req('typed', { event: 'ok' }))).toMatchObject({ type: 'action', action: { message: 'ok' } });
  });
});
