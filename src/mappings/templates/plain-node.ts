/** For each JSONata AST node type, the keys its node may have for its meaning to be what its type says */
export type NodeKeys = Readonly<Record<string, ReadonlySet<string>>>;

/** the shapes with no filter, sort, bind, focus or group stage: a path of names, literals, operators, blocks */
export const PLAIN_NODE_KEYS: NodeKeys = {
  binary: new Set(['type', 'value', 'position', 'lhs', 'rhs']),
  block: new Set(['type', 'position', 'expressions']),
  path: new Set(['type', 'steps']),
  name: new Set(['type', 'value', 'position']),
  variable: new Set(['type', 'value', 'position']),
  string: new Set(['type', 'value', 'position']),
  number: new Set(['type', 'value', 'position']),
  value: new Set(['type', 'value', 'position']),
};

/** whether `node` is a node of a type `keys` names and carries no key beyond that type's */
export function isPlainNode(node: unknown, keys: NodeKeys = PLAIN_NODE_KEYS): boolean {
  if (!node || typeof node !== 'object') return false;
  const allowed = keys[(node as { type?: string }).type ?? ''];
  return allowed !== undefined && Object.keys(node).every((key) => allowed.has(key));
}
