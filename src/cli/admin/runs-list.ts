import { parseArgs } from 'node:util';
import { gatewayAnswer } from './admin-client.js';
import type { CliIo } from '../io/cli-io.js';
import { textTable } from '../io/text-table.js';

const options = {
  config: { type: 'string', short: 'c' },
  url: { type: 'string' },
  json: { type: 'boolean' },
  status: { type: 'string' },
  mapping: { type: 'string' },
  tools: { type: 'string' },
  limit: { type: 'string' },
} as const;

const TOOL_FILTERS = ['any', 'waiting', 'refused', 'failed'];

/** a run's tool calls in a few words: how many, and those a person or trouble stopped */
export function toolsCell(tools: { made: number; waiting: number; refused: number; failed: number } | undefined): string {
  if (!tools?.made) return '-';
  return [`${tools.made}`, tools.waiting && `${tools.waiting} waiting`, tools.refused && `${tools.refused} refused`, tools.failed && `${tools.failed} failed`].filter(Boolean).join(', ');
}

/** a length of time in its largest units: "101 ms", "4.2 s", "2 min 1 s", "1 h 5 min"; '-' when there is none (yet) */
export function elapsedText(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '-';
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  if (s < 3600) return `${Math.floor(s / 60)} min${s % 60 ? ` ${s % 60} s` : ''}`;
  const min = Math.round(s / 60);
  return `${Math.floor(min / 60)} h${min % 60 ? ` ${min % 60} min` : ''}`;
}

/** QUEUED until the first claim, PERSON waiting for approvals, WORKED the rest of its time (GET /admin/runs items' `times`) */
const row = (r: any) => [
  r.createdAt, r.status, r.name || '-', r.mappingId ?? '-', toolsCell(r.tools),
  elapsedText(r.times?.queuedMs), r.times?.approvalWaitMs ? elapsedText(r.times.approvalWaitMs) : '-', elapsedText(r.times?.workedMs), r.id,
];
const HEADER = ['TIME', 'STATUS', 'NAME', 'MAPPING', 'TOOLS', 'QUEUED', 'PERSON', 'WORKED', 'ID'];

/** `herald runs list [--status S] [--mapping ID] [--tools any|waiting|refused|failed] [--limit N] [--json]`: the newest runs of /admin/runs */
export async function runsListCommand(argv: string[], io: CliIo): Promise<number> {
  const { values } = parseArgs({ args: argv, options });
  const limit = values.limit;
  if (limit !== undefined && !(/^\d+$/.test(limit) && Number(limit) >= 1 && Number(limit) <= 1000)) {
    io.err(`herald runs list: --limit must be an integer from 1 to 1000 (got "${limit}")`);
    return 2;
  }
  if (values.tools !== undefined && !TOOL_FILTERS.includes(values.tools)) {
    io.err(`herald runs list: --tools must be one of ${TOOL_FILTERS.join(', ')} (got "${values.tools}")`);
    return 2;
  }
  const query = new URLSearchParams({
    ...(values.status !== undefined && { status: values.status }),
    ...(values.mapping !== undefined && { mapping: values.mapping }),
    ...(values.tools !== undefined && { tools: values.tools }),
    ...(limit !== undefined && { limit }),
  });
  const answer = await gatewayAnswer('runs list', values, io, (c) => c.call('GET', `/runs${query.size ? `?${query}` : ''}`));
  if (typeof answer === 'number') return answer;
  const runs = answer.body.data as unknown[];
  if (values.json) io.out(JSON.stringify(runs, null, 2));
  else if (!runs.length) io.out('no runs');
  else for (const text of textTable([HEADER, ...runs.map(row)])) io.out(text);
  return 0;
}
