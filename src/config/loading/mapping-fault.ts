/**
 * A schema fault of a mapping also names the mapping's id, when it has one: `hooks.mappings[3].rate.per`
 * alone makes the reader count entries. `fault` is a `key: message` line; `mappings` the raw entries.
 */
export function withMappingId(fault: string, mappings: unknown, keyPattern = /^hooks\.mappings\[(\d+)\]/): string {
  const at = keyPattern.exec(fault);
  if (!at || !Array.isArray(mappings)) return fault;
  const id = (mappings[Number(at[1])] as { id?: unknown } | undefined)?.id;
  if (typeof id !== 'string') return fault;
  const colon = fault.indexOf(': ');
  return `${fault.slice(0, colon)} (mapping "${id}")${fault.slice(colon)}`;
}
