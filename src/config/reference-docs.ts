import { z } from 'zod';

interface JsonSchemaNode {
  type?: string | string[];
  description?: string;
  default?: unknown;
  enum?: unknown[];
  const?: unknown;
  properties?: Record<string, JsonSchemaNode>;
  items?: JsonSchemaNode;
  anyOf?: JsonSchemaNode[];
  additionalProperties?: JsonSchemaNode | boolean;
}

/**
 * A markdown table of a zod schema's fields (key, type, default, description), generated from
 * the schema itself so the docs cannot drift from the code. Fields of list entries are listed
 * as `key[].field`, fields of map values as `key.<name>.field`.
 */
export function renderSchemaTable(schema: z.ZodType, prefix = ''): string {
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchemaNode;
  const rows: string[] = [];
  walk(json, prefix, rows);
  return ['| key | type | default | description |', '|---|---|---|---|', ...rows].join('\n');
}

function walk(node: JsonSchemaNode, at: string, rows: string[]): void {
  if (at) rows.push(`| \`${at}\` | ${typeOf(node)} | ${defaultOf(node)} | ${cell(node.description ?? '')} |`);
  const join = (key: string) => (at ? `${at}.${key}` : key);
  for (const [key, child] of Object.entries(propertiesOf(node))) walk(child, join(key), rows);
  if (node.items) for (const [key, child] of Object.entries(propertiesOf(node.items))) walk(child, `${at}[].${key}`, rows);
  const values = node.additionalProperties;
  if (values && typeof values === 'object' && !node.properties) {
    for (const [key, child] of Object.entries(propertiesOf(values))) walk(child, `${at}.<name>.${key}`, rows);
  }
}

/** the fields of an object, or of every branch of a union of objects */
function propertiesOf(node: JsonSchemaNode): Record<string, JsonSchemaNode> {
  if (node.properties) return node.properties;
  if (node.anyOf) return Object.assign({}, ...node.anyOf.map(propertiesOf));
  return {};
}

/** objects list their own fields' defaults, so only plain values show one */
function defaultOf(node: JsonSchemaNode): string {
  const value = node.default;
  if (value === undefined || (value !== null && typeof value === 'object' && !Array.isArray(value))) return '';
  return `\`${cell(JSON.stringify(value))}\``;
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

function typeOf(node: JsonSchemaNode): string {
  if (node.enum) return node.enum.map((v) => `\`${JSON.stringify(v)}\``).join(' \\| ');
  if (node.const !== undefined) return `\`${JSON.stringify(node.const)}\``;
  if (node.anyOf) {
    const branches = [...new Set(node.anyOf.map(typeOf))];
    return branches.join(' \\| ');
  }
  const type = Array.isArray(node.type) ? node.type.join(' \\| ') : node.type ?? 'any';
  if (type === 'array' && node.items) {
    const item = typeOf(node.items);
    return item.includes('\\|') ? `(${item})[]` : `${item}[]`;
  }
  if (type === 'object' && !node.properties && node.additionalProperties && typeof node.additionalProperties === 'object') {
    return `map of ${typeOf(node.additionalProperties)}`;
  }
  return type;
}
