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
 * the schema itself so the docs cannot drift from the code.
 */
export function renderSchemaTable(schema: z.ZodType, prefix = ''): string {
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchemaNode;
  const rows: string[] = [];
  walk(json, prefix, rows);
  return ['| key | type | default | description |', '|---|---|---|---|', ...rows].join('\n');
}

function walk(node: JsonSchemaNode, at: string, rows: string[]): void {
  const props = node.properties;
  if (at) rows.push(`| \`${at}\` | ${typeOf(node)} | ${node.default === undefined ? '' : `\`${JSON.stringify(node.default)}\``} | ${(node.description ?? '').replace(/\|/g, '\\|')} |`);
  if (props) for (const [key, child] of Object.entries(props)) walk(child, at ? `${at}.${key}` : key, rows);
}

function typeOf(node: JsonSchemaNode): string {
  if (node.enum) return node.enum.map((v) => `\`${JSON.stringify(v)}\``).join(' \\| ');
  if (node.const !== undefined) return `\`${JSON.stringify(node.const)}\``;
  if (node.anyOf) return node.anyOf.map(typeOf).join(' \\| ');
  const type = Array.isArray(node.type) ? node.type.join(' \\| ') : node.type ?? 'any';
  if (type === 'array' && node.items) return `${typeOf(node.items)}[]`;
  if (type === 'object' && !node.properties && node.additionalProperties && typeof node.additionalProperties === 'object') {
    return `map of ${typeOf(node.additionalProperties)}`;
  }
  return type;
}
