import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { builtinPlugins, loadConfigValue } from '../helpers/builtins.js';
import { ConfigError } from '../../src/errors.js';
import { resolveMappings } from '../../src/mappings/loading/resolve-mappings.js';
import { definePlugin, definePreset, presetCommonOptions } from '../../src/plugin-sdk/sdk.js';

/** a preset as a third-party plugin would write one: a signed path, its own option */
const acmePlugin = definePlugin({
  id: 'acme',
  roles: ['preset'],
  summary: 'acme',
  config: z.object({}).strict(),
  preset: definePreset({
    path: 'acme',
    verifies: 'X-Acme-Signature, HMAC-SHA256 of the body with `secret`',
    summary: 'Acme events',
    docs: 'https://acme.example/webhooks',
    options: presetCommonOptions.extend({ label: z.string().default('Acme').describe('Name of the hooks.') }),
    requires: ['secret'],
    mappings: (o) => [
      { id: 'acme', match: { path: o.path }, name: o.label, sessionKey: 'hook:acme:{{id}}', messageTemplate: 'Acme {{type}}', auth: { type: 'hmac-sha256', header: 'x-acme-signature', secret: o.secret! } },
    ],
  }),
  create: () => ({}),
});

const file = path.join('/tmp', 'herald.presets-test.json5');
const load = (presets: unknown[], mappings: unknown[] = []) =>
  loadConfigValue({ hooks: { enabled: true, token: 'a-hook-token-long-enough', presets, mappings, mappingsDir: '/nonexistent' } }, file, {
    builtins: [...builtinPlugins, acmePlugin],
  });

async function faultsOf(promise: Promise<unknown>): Promise<string[]> {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  expect(error).toBeInstanceOf(ConfigError);
  return (error as ConfigError).faults.map((f) => f.replace(`${file}: `, ''));
}

describe('hooks.presets', () => {
  it('takes names and objects; the objects options reach the mappings, after the user\'s own', async () => {
    const loaded = await load(['gmail', { name: 'acme', secret: 's3cret', agentId: 'billing', label: 'Billing', deliver: false }], [{ id: 'mine', match: { path: 'other' } }]);
    const mappings = await resolveMappings(loaded, { config: loaded.config, channelNames: loaded.plugins.channelNames() });
    expect(mappings.map((m) => [m.id, m.origin])).toEqual([
      ['mine', 'hooks.mappings[0]'],
      ['gmail', 'hooks.presets[0] (gmail, mapping 0)'],
      ['acme', 'hooks.presets[1] (acme, mapping 0)'],
    ]);
    expect(mappings[2]!.definition).toMatchObject({ name: 'Billing', agentId: 'billing', deliver: false, match: { path: 'acme' } });
    expect(mappings[2]!.signature).toBeDefined();
  });

  it('names an unknown preset, an option that is not one, a bad value and a missing secret', async () => {
    expect(await faultsOf(load(['gmial', { name: 'acme', secret: 'x', colour: 'red' }, { name: 'acme', secret: 'x', deliver: 'yes' }, { name: 'acme' }]))).toEqual([
      expect.stringMatching(/^hooks\.presets\[0\]: unknown preset "gmial" \(known: gmail, .*acme\)$/),
      'hooks.presets[1].colour: unknown key',
      'hooks.presets[2].deliver: Invalid input: expected boolean, received string',
      'hooks.presets[3].secret: required: the acme preset verifies X-Acme-Signature, HMAC-SHA256 of the body with `secret` (write { name: "acme", secret: "${...}" })',
    ]);
  });

  it("governs a preset's runs with concurrency, rate and coalesce, laid over the mappings that start runs only", async () => {
    const loaded = await load([{ name: 'alertmanager', secret: 'a-bearer-token-0123', concurrency: 2, rate: { runs: 10, per: '1m' }, coalesce: { windowMs: 30_000 } }]);
    const mappings = await resolveMappings(loaded, { config: loaded.config, channelNames: loaded.plugins.channelNames() });
    const governed = mappings.map((m) => {
      const d = m.definition as { action?: string; concurrency?: number; coalesce?: { windowMs: number } };
      return [m.id, d.action ?? 'agent', d.concurrency, d.coalesce?.windowMs];
    });
    expect(governed).toEqual([
      ['alertmanager-skip', 'skip', undefined, undefined],
      ['alertmanager-firing', 'agent', 2, 30_000],
      ['alertmanager-resolved', 'wake', undefined, undefined],
    ]);
    expect(await faultsOf(load([{ name: 'alertmanager', secret: 'a-bearer-token-0123', concurrency: 0 }]))).toEqual([expect.stringMatching(/^hooks\.presets\[0\]\.concurrency: /)]);
  });

  it('moves a preset to another path with the path option', async () => {
    const loaded = await load([{ name: 'acme', secret: 'x', path: 'acme-prod' }]);
    const mappings = await resolveMappings(loaded, { config: loaded.config, channelNames: loaded.plugins.channelNames() });
    expect(mappings.map((m) => m.path)).toEqual(['acme-prod']);
  });

  it("leaves out a preset's mappings on a path the repository's mapping files serve, with one note saying so", async () => {
    // the README's quickstart: the checkout's mappings/ (github.yaml among them) and the github preset as docs/presets.md shows it
    const mappingsDir = path.resolve(import.meta.dirname, '../../mappings');
    const raw = { hooks: { enabled: true, token: 'a-hook-token-long-enough', presets: [{ name: 'github', secret: 'a-github-secret' }], mappingsDir } };
    const loaded = await loadConfigValue(raw, file);
    const notes: string[] = [];
    const mappings = await resolveMappings(loaded, { config: loaded.config, channelNames: loaded.plugins.channelNames(), notes });
    const github = mappings.filter((m) => m.path === 'github');
    expect(github.length).toBeGreaterThan(0);
    expect(github.every((m) => m.origin?.startsWith(path.join(mappingsDir, 'github.yaml')))).toBe(true);
    expect(notes).toEqual([
      expect.stringMatching(/^hooks\.presets\[0\] \(github\): path "github" is served by your mappings \(.*mappings\/github\.yaml\), which shadow the preset's \d+ mapping\(s\) there; to use the preset on it, remove those mappings \(or set hooks\.mappingsDir to another folder\), or give the preset its own path and id \(\{ name: "github", path: "\.\.\.", id: "\.\.\." \}: the id keeps its mapping ids apart from yours\)$/),
    ]);

    // moved to a path of its own, its mapping ids are still the file's (github-push, ...): the fault says to give it an id
    const movedOnly = await loadConfigValue({ hooks: { ...raw.hooks, presets: [{ name: 'github', secret: 'x', path: 'gh' }] } }, file);
    const faults = await faultsOf(resolveMappings(movedOnly, { config: movedOnly.config, channelNames: movedOnly.plugins.channelNames() }));
    expect(faults.length).toBeGreaterThan(0);
    for (const fault of faults) expect(fault).toContain('give the preset entry an id of its own ({ name: "github", id: "..." }: its mapping ids become <id>-...)');

    // with its own path and id, as the note says, the preset loads beside the file
    const moved = await loadConfigValue({ hooks: { ...raw.hooks, presets: [{ name: 'github', secret: 'x', path: 'gh', id: 'gh' }] } }, file);
    const movedNotes: string[] = [];
    const both = await resolveMappings(moved, { config: moved.config, channelNames: moved.plugins.channelNames(), notes: movedNotes });
    expect(both.map((m) => m.origin)).toContain('hooks.presets[0] (github, mapping 0)');
    expect(both.filter((m) => m.path === 'gh').every((m) => m.id.startsWith('gh-'))).toBe(true);
    expect(movedNotes).toEqual([]);
  });

  it("says what to do when a preset's mapping id is also one of yours on another path", async () => {
    const faults = await faultsOf(
      load([{ name: 'acme', secret: 'x' }], [{ id: 'acme', match: { path: 'mine' } }]).then((loaded) => resolveMappings(loaded, { config: loaded.config, channelNames: loaded.plugins.channelNames() })),
    );
    expect(faults).toEqual([
      'mapping "acme" (hooks.presets[0] (acme, mapping 0)): duplicate mapping id (also used by hooks.mappings[0]): hooks.presets[0] (acme) and your hooks.mappings both define it; give the preset entry an id of its own ({ name: "acme", id: "..." }: its mapping ids become <id>-...), rename yours, or drop the preset from hooks.presets',
    ]);
  });

  it("takes gmail's model and thinking from hooks.gmail, under the entry's own", async () => {
    const raw = { hooks: { enabled: true, token: 'a-hook-token-long-enough', presets: [{ name: 'gmail', thinking: 'high' }], gmail: { thinking: 'low', allowUnsafeExternalContent: true }, mappingsDir: '/nonexistent' } };
    const loaded = await loadConfigValue(raw, file);
    const [gmail] = await resolveMappings(loaded, { config: loaded.config, channelNames: loaded.plugins.channelNames() });
    expect(gmail!.definition).toMatchObject({ thinking: 'high', allowUnsafeExternalContent: true });
  });

  describe('one preset, several entries', () => {
    const resolve = async (presets: unknown[]) => {
      const loaded = await load(presets);
      return resolveMappings(loaded, { config: loaded.config, channelNames: loaded.plugins.channelNames() });
    };

    it('gives each entry ids of its own: the one on the preset\'s path keeps the name, the others take their path or id', async () => {
      const mappings = await resolve([
        { name: 'github', secret: 'secret-a' },
        { name: 'github', path: 'gh-b', secret: 'secret-b' },
        { name: 'github', path: 'orgs/c', secret: 'secret-c' },
        { name: 'github', path: 'gh-d', id: 'octo', secret: 'secret-d' },
      ]);
      const issue = (id: string) => mappings.find((m) => m.id === id);
      expect(issue('github-issue')).toMatchObject({ path: 'github', origin: 'hooks.presets[0] (github, mapping 1)' });
      expect(issue('gh-b-issue')).toMatchObject({ path: 'gh-b', origin: 'hooks.presets[1] (github, mapping 1)' });
      expect(issue('orgs-c-issue')).toMatchObject({ path: 'orgs/c' });
      expect(issue('octo-issue')).toMatchObject({ path: 'gh-d' });
      expect(issue('github-issue')!.definition).toMatchObject({ sessionKey: 'hook:github:{{repository.full_name}}#{{issue.number}}' });
      expect(issue('gh-b-issue')!.definition).toMatchObject({ sessionKey: 'hook:gh-b:{{repository.full_name}}#{{issue.number}}' });
      expect(new Set(mappings.map((m) => m.id)).size).toBe(mappings.length);
    });

    it("keeps the ids of a preset listed once, on any path, and of a third party's preset", async () => {
      const mappings = await resolve([{ name: 'standard-webhooks', path: 'resend', secret: 'whsec_c2VjcmV0' }, { name: 'acme', secret: 'a' }, { name: 'acme', path: 'acme-2', secret: 'b' }]);
      expect(mappings.map((m) => m.id)).toEqual(['standard-webhooks-event', 'acme', 'acme-2']);
      expect(mappings[2]!.definition).toMatchObject({ sessionKey: 'hook:acme-2:{{id}}' });
    });

    it('names hooks.presets[i] when two entries would share an id, and a bad id', async () => {
      expect(
        await faultsOf(
          load([
            { name: 'github', path: 'gh-a', secret: 'secret-a' },
            { name: 'github', path: 'gh-a', secret: 'secret-b' },
            { name: 'github', path: 'gh-c', id: 'gh-a', secret: 'secret-c' },
            { name: 'github', path: 'gh-d', id: 'no spaces', secret: 'secret-d' },
          ]),
        ),
      ).toEqual([
        'hooks.presets[3].id: letters, digits, - and _',
        'hooks.presets[1]: id "gh-a" is also hooks.presets[0]\'s: give each github entry its own path (or id)',
        'hooks.presets[2]: id "gh-a" is also hooks.presets[0]\'s: give each github entry its own path (or id)',
      ]);
    });
  });
});
