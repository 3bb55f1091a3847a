import { generateKeyPairSync } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { builtinPlugins, loadConfigValue } from '../../helpers/builtins.js';
import { runFixtureFile } from '../../../src/mappings/loading/mapping-fixtures.js';
import { presetMappingSet } from '../../../src/plugin-host/enabled-presets.js';
import { danglingText, renderedFields, stringsOf } from './dangling-text.js';

/**
 * Every preset's `plugins/<id>/fixtures/*.json` (cases as in mappings/*.test.json) runs here
 * against the mapping set the preset expands to, through the same engine as a user's mappings.
 * Options it cannot expand without (`requires`) are set to `fixture-<option>` (`secret`: FIXTURE_SECRET,
 * `publicKey`: FIXTURE_PUBLIC_KEY, `webhookId`: PayPal's letters and digits). Besides its expected fields, every case's rendered name, message
 * and text must hold no dangling text (dangling-text.ts): a sparse payload prints no empty hole.
 */
const root = fileURLToPath(new URL('../../../', import.meta.url));
/** a secret every scheme takes, the whsec_<base64> form of standard-webhooks included */
const FIXTURE_SECRET = `whsec_${Buffer.from('fixture-secret').toString('base64')}`;
/** a secret that is a key: SendGrid's verification key is an ECDSA public key (base64 DER) */
const FIXTURE_SECRETS: Record<string, string> = {
  sendgrid: generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).publicKey.export({ format: 'der', type: 'spki' }).toString('base64'),
};
/** an Ed25519 public key (hex) for the presets that verify with one (discord) */
const FIXTURE_PUBLIC_KEY = '1e53c0e90d403cbe6a84503a7fd7ac31ead05e4316fa8d850c842d1d0400f6bd';
const presets = builtinPlugins.filter((p) => p.preset !== undefined);

function fixtureFiles(id: string): string[] {
  const dir = path.join(root, 'plugins', id, 'fixtures');
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir).filter((f) => f.endsWith('.json')).sort().map((f) => path.join(dir, f));
}

describe('preset fixtures', () => {
  it.each(presets.map((p) => [p.id]))('%s has fixtures', (id) => {
    expect(fixtureFiles(id)).not.toEqual([]);
  });

  const cases = presets.flatMap((plugin) => fixtureFiles(plugin.id).map((file) => [path.relative(root, file), plugin, file] as const));
  it.each(cases)('%s', async (_label, plugin, file) => {
    const options = Object.fromEntries(
      (plugin.preset!.requires ?? []).map((key: string) => [key, key === 'secret' ? (FIXTURE_SECRETS[plugin.id] ?? FIXTURE_SECRET) : key === 'publicKey' ? FIXTURE_PUBLIC_KEY : key === 'webhookId' ? '8PT597110X687430LFIXTURE' : `fixture-${key}`]),
    );
    const { mappings, faults } = presetMappingSet(plugin, { name: plugin.id, ...options });
    expect(faults).toEqual([]);
    const loaded = await loadConfigValue({}, path.join(root, 'herald.fixtures.json'));
    const sources = mappings!.map((raw, i) => ({ origin: `hooks.presets[0] (${plugin.id}, mapping ${i})`, raw, preset: true }));
    const results = await runFixtureFile(file, sources, loaded, { config: loaded.config, channelNames: loaded.plugins.channelNames() });
    expect(results.length).toBeGreaterThan(0);
    expect(results.filter((r) => !r.ok).map((r) => `${r.label}\n  ${r.mismatches.join('\n  ')}`)).toEqual([]);
    const requests = JSON.parse(fs.readFileSync(file, 'utf8')) as { payload?: unknown; form?: string }[];
    const dangling = results.flatMap((r, i) => {
      const { payload, form } = requests[i]!;
      const quoted = stringsOf(form === undefined ? payload : [...new URLSearchParams(form).values()]);
      return renderedFields(r.actual).flatMap(([field, text]) => danglingText(field, text, quoted).map((fault) => `${r.label}: ${fault}`));
    });
    expect(dangling).toEqual([]);
  });
});
