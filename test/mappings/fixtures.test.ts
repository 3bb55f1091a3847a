import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadConfigValue } from '../helpers/builtins.js';
import { findFixtureFiles, runMappingFixtures } from '../../src/mappings/loading/mapping-fixtures.js';

/**
 * Every `mappings/**\/<x>.test.json` of the repository runs here against its `<x>.yaml`, with
 * the repository's transforms/ folder: `npm test` keeps the shipped mappings honest.
 */
const root = fileURLToPath(new URL('../../', import.meta.url));
const fixtureFiles = findFixtureFiles(path.join(root, 'mappings'));

describe('mapping fixtures', () => {
  it('finds the shipped fixtures', () => {
    expect(fixtureFiles.map((f) => path.basename(f))).toEqual(expect.arrayContaining(['github.test.json', 'stripe.test.json', 'alerts.test.json', 'twilio-sms.test.json']));
  });

  it.each(fixtureFiles.map((file) => [path.relative(root, file), file]))('%s', async (_label, file) => {
    const loaded = await loadConfigValue({}, path.join(root, 'herald.fixtures.json'));
    const results = await runMappingFixtures(file, loaded, { config: loaded.config, channelNames: loaded.plugins.channelNames() });
    expect(results.length).toBeGreaterThan(0);
    const failures = results.filter((r) => !r.ok).map((r) => `${r.label}\n  ${r.mismatches.join('\n  ')}`);
    expect(failures).toEqual([]);
  });
});
