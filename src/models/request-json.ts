/** the JSON of values sent unchanged with many requests (a tool's definition), made once */
const kept = new WeakMap<object, string>();

/** `value`, its JSON made now and written from then on by requestJson wherever it is a tool; it must not change after */
export function keepJson<T extends object>(value: T): T {
  kept.set(value, JSON.stringify(value));
  return value;
}

/**
 * A request body as JSON, as JSON.stringify writes it but for `tools`, which comes last with
 * each tool kept by keepJson written from its kept JSON: every model request of a turn carries
 * every granted tool's schema, most of its bytes, the same at each request.
 */
export function requestJson(body: unknown): string {
  const tools = (body as { tools?: unknown } | null | undefined)?.tools;
  if (!Array.isArray(tools) || !tools.some((tool) => kept.has(tool as object))) return JSON.stringify(body);
  // `tools: undefined` is left out by JSON.stringify
  const rest = JSON.stringify({ ...(body as object), tools: undefined });
  const list = tools.map((tool) => kept.get(tool as object) ?? JSON.stringify(tool) ?? 'null').join(',');
  return rest === '{}' ? `{"tools":[${list}]}` : `${rest.slice(0, -1)},"tools":[${list}]}`;
}
