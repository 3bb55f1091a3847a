import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { receiptOutcomes } from '../../src/http/admin/admin-schemas.js';
import { mappingStages } from '../../src/mappings/mapping-failure.js';

const consoleDoc = fs.readFileSync(new URL('../../docs/console.md', import.meta.url), 'utf8');

describe("docs/console.md names every value a receipt's outcome and failure stage can take", () => {
  it('every outcome', () => {
    const sentence = consoleDoc.split('\n').find((line) => line.startsWith('Every request to the webhook surface leaves a receipt'))!;
    const listed = /`outcome` \((.*?)\), `errorCode`/.exec(sentence)![1]!;
    for (const outcome of receiptOutcomes) expect(listed, outcome).toContain(`\`${outcome}\``);
  });

  it('every failure stage', () => {
    const row = consoleDoc.split('\n').find((line) => line.startsWith('| `stage` |'))!;
    for (const stage of mappingStages) expect(row, stage).toContain(`\`${stage}\` (`);
  });
});
