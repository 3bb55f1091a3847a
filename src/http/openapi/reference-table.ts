import type { RouteDoc } from './route-doc.js';

const prefixes = { root: '', hooks: '/hooks', platform: '/v1', admin: '/admin' } as const;
const auth = { none: 'none', hookToken: 'hook token', apiKey: 'API key', gatewayToken: 'gateway token' } as const;

/** The API reference of docs/console.md: one row per documented route, from the same declarations as /openapi.json. */
export function renderReferenceTable(routes: RouteDoc[]): string {
  const rows = routes.map((r) => {
    const statuses = Object.keys(r.responses).map(Number).sort((a, b) => a - b).join(', ');
    return `| \`${r.method.toUpperCase()} ${prefixes[r.surface]}${r.path}\` | ${auth[r.security]} | ${r.summary} | ${statuses} |`;
  });
  return ['| Route | Auth | What it does | Statuses |', '|---|---|---|---|', ...rows].join('\n');
}
