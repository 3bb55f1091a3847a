import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { mappingFaults, withPositions } from '../../src/mappings/loading/mapping-faults.js';
import { tempDir } from '../helpers/start-herald.js';

/** the faults of a refused load read back as file, mapping, field and position (the Overview's "mapping not loaded") */
function folder(files: Record<string, string>): string {
  const dir = tempDir();
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
  return dir;
}

describe('mappingFaults', () => {
  it('reads a fault of a mapping in a YAML list, a JSON file of one mapping, and a config mapping', async () => {
    const dir = folder({
      'a.yaml': '- id: one\n  match: { path: one }\n- id: two\n  match:\n    path: two\n    when: "payload.x ="\n',
      'b.json': '{\n  "id": "solo",\n  "match": { "path": "solo" },\n  "textTemplate": "{{ ( }}"\n}\n',
    });
    const a = path.join(dir, 'a.yaml');
    const b = path.join(dir, 'b.json');
    const faults = [
      `mapping "two" (${a}[1]): match.when: syntax error in "payload.x =": Expected an expression (at 11)`,
      `mapping "solo" (${b}[0]): textTemplate: template error`,
      `${a}[0].action: Invalid option`,
      'mapping "cfg" (hooks.mappings[3]): messageTemplate: template error',
      'gateway.port: expected a number',
    ];
    expect(await mappingFaults(faults, dir)).toEqual([
      { file: a, index: 1, id: 'two', field: 'match.when', fault: faults[0], line: 6, column: 11 },
      { file: b, index: 0, id: 'solo', field: 'textTemplate', fault: faults[1], line: 4, column: 19 },
      // a field the mapping does not have: the mapping's own place
      { file: a, index: 0, id: null, field: 'action', fault: faults[2], line: 1, column: 3 },
      { file: 'hooks.mappings', index: 3, id: 'cfg', field: 'messageTemplate', fault: faults[3], line: null, column: null },
    ]);
  });

  it('keeps a fault of the whole file (not valid YAML) with no mapping, and adds positions only where found', async () => {
    const dir = folder({ 'c.yaml': 'id: [\n' });
    const c = path.join(dir, 'c.yaml');
    const fault = `${c}: not valid YAML: Flow sequence in block collection must be sufficiently indented and end with a ] at line 2, column 1`;
    expect(await mappingFaults([fault], dir)).toEqual([{ file: c, index: null, id: null, field: null, fault, line: null, column: null }]);
    expect(await withPositions([fault, 'gateway.port: x'], dir)).toEqual([fault, 'gateway.port: x']);
  });
});
