/**
 * The mapped hooks the benchmark sends, defined once for herald's config and the baseline:
 * a GitHub-like issue payload checked by a JSON Schema (ajv, with a format) and turned into
 * a wake text or an agent message by JSONata templates.
 */
export const MAPPED_SCHEMA = {
  type: 'object',
  required: ['action', 'issue', 'repository'],
  properties: {
    action: { type: 'string', enum: ['opened', 'edited', 'closed', 'reopened'] },
    issue: {
      type: 'object',
      required: ['number', 'title', 'html_url'],
      properties: { number: { type: 'integer', minimum: 1 }, title: { type: 'string', maxLength: 256 }, html_url: { type: 'string', format: 'uri' } },
    },
    repository: { type: 'object', required: ['full_name'], properties: { full_name: { type: 'string' } } },
  },
} as const;

export const WAKE_TEXT_TEMPLATE = 'Issue #{{ issue.number }} {{ action }} in {{ repository.full_name }}: {{ issue.title }}';
export const AGENT_MESSAGE_TEMPLATE = 'Triage issue #{{ issue.number }} ({{ $uppercase(action) }}) of {{ repository.full_name }}: {{ issue.title }} {{ issue.html_url }}';
export const AGENT_NAME_TEMPLATE = 'GitHub {{ repository.full_name }}';

/** the request body; `{n}` is replaced per request by the load generator (a fresh text each time) */
export const MAPPED_BODY = JSON.stringify({
  action: 'opened',
  issue: { number: 4217, title: 'Export fails on the {n}th night', html_url: 'https://github.com/acme/export/issues/4217', labels: [{ name: 'bug' }] },
  repository: { full_name: 'acme/export', private: false },
  sender: { login: 'octocat' },
});

/** herald mappings for the two mapped paths */
export function mappedHookMappings(): Record<string, unknown>[] {
  return [
    { id: 'bench-wake', match: { path: 'mapped-wake' }, action: 'wake', schema: MAPPED_SCHEMA, textTemplate: WAKE_TEXT_TEMPLATE },
    {
      id: 'bench-agent',
      match: { path: 'mapped-agent' },
      action: 'agent',
      schema: MAPPED_SCHEMA,
      messageTemplate: AGENT_MESSAGE_TEMPLATE,
      name: AGENT_NAME_TEMPLATE,
      deliver: false,
    },
  ];
}

/**
 * The mapped-tool path: the same schema, and the issue's title templated into the arguments of a
 * direct call (action "tool") of the echo MCP server's read-only `echo` (bench/mcp-echo-server.ts),
 * so the hook token alone lets it run: what a mapped call costs beside a mapped agent request.
 */
export function mappedToolMapping(): Record<string, unknown> {
  return {
    id: 'bench-tool',
    match: { path: 'mapped-tool' },
    action: 'tool',
    schema: MAPPED_SCHEMA,
    tool: 'echo__echo',
    arguments: { message: 'Issue #{{ issue.number }} of {{ repository.full_name }}: {{ issue.title }}' },
  };
}

/**
 * `count` mappings on their own paths (`m-0` … `m-<count-1>`), each with a `when` predicate
 * when `withWhen`; the request goes to the last one.
 */
export function manyMappings(count: number, withWhen: boolean): Record<string, unknown>[] {
  return Array.from({ length: count }, (_, i) => ({
    id: `m-${i}`,
    match: { path: `m-${i}`, ...(withWhen ? { when: `action = "opened" and repository.full_name = "acme/export" and ${i} >= 0` } : {}) },
    action: 'wake',
    schema: MAPPED_SCHEMA,
    textTemplate: WAKE_TEXT_TEMPLATE,
  }));
}

/** what the one-endpoint mappings route by, in turn: two body fields and a header */
const ROUTE_FIELDS = ['source', 'type', 'headers.x-kind'] as const;

/**
 * `count` mappings on one path (`routed`), each taking one sender by an equality in `match.when`
 * (`source = "source-0"`, `type = "type-1"`, `headers.x-kind = "headers.x-kind-2"`, ... in turn):
 * one endpoint for many senders, routed by the request.
 */
export function onePathMappings(count: number): Record<string, unknown>[] {
  return Array.from({ length: count }, (_, i) => {
    const field = ROUTE_FIELDS[i % ROUTE_FIELDS.length]!;
    return { id: `r-${i}`, match: { path: 'routed', when: `${field} = "${field}-${i}"` }, action: 'wake', schema: MAPPED_SCHEMA, textTemplate: WAKE_TEXT_TEMPLATE };
  });
}

/** the request the last of `onePathMappings(count)` takes (and no other): its body and headers */
export function onePathRequest(count: number): { body: string; headers: Record<string, string> } {
  const last = count - 1;
  const value = (field: string) => (last % ROUTE_FIELDS.length === ROUTE_FIELDS.indexOf(field as (typeof ROUTE_FIELDS)[number]) ? `${field}-${last}` : 'nobody');
  return {
    body: JSON.stringify({ ...(JSON.parse(MAPPED_BODY) as Record<string, unknown>), source: value('source'), type: value('type') }),
    headers: { 'x-kind': value('headers.x-kind') },
  };
}
