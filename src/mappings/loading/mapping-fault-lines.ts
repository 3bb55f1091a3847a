import { groupUnsetVariables } from '../../config/loading/unset-variables.js';
import { mappingFaults, withPositions } from './mapping-faults.js';

const UNSET = /environment variable \w+ is not set/;

/**
 * The faults of a refused load as `herald serve`, `herald hooks send` and `herald config check`
 * print them: a mapping file's field followed by its line and column, each unset variable one line
 * naming every key that uses it. A fault of a field whose variable is unset is what its empty value
 * broke (`Too small`), not a fault of its own: left out.
 */
export async function mappingFaultLines(faults: readonly string[], mappingsDir: string): Promise<string[]> {
  const located = await mappingFaults(faults, mappingsDir);
  const where = (m: (typeof located)[number]) => `${m.file}\0${m.index}\0${m.field}`;
  const unsetAt = new Set(located.filter((m) => m.field !== null && UNSET.test(m.fault)).map(where));
  const broken = new Set(located.filter((m) => !UNSET.test(m.fault) && unsetAt.has(where(m))).map((m) => m.fault));
  return groupUnsetVariables(await withPositions(faults.filter((f) => !broken.has(f)), mappingsDir));
}
