import { parseArgs } from 'node:util';
import { gatewayAnswer, type AdminAnswer, type AdminClient } from './admin-client.js';
import type { CliIo } from '../io/cli-io.js';
import { textTable } from '../io/text-table.js';

const options = { config: { type: 'string', short: 'c' }, url: { type: 'string' }, json: { type: 'boolean' } } as const;
const listOptions = { ...options, failed: { type: 'boolean' }, mapping: { type: 'string' }, limit: { type: 'string' } } as const;

/** one receipt as a line: status, outcome, path, mapping, what it started */
const line = (r: any) =>
  `${r.id}  ${r.status} ${r.outcome}  ${r.path}${r.mappingId ? `  mapping ${r.mappingId}` : ''}${r.runId ? `  run ${r.runId}` : ''}${r.eventId != null ? `  event ${r.eventId}` : ''}${r.replayOf ? `  replay of ${r.replayOf}` : ''}`;
/** where and why its mapping failed, when it did */
const failed = (r: any) =>
  r.failure
    ? [
        `  ${r.failure.stage} of ${r.failure.mappingId} failed: ${r.failure.cause}${r.failure.at ? ` (${r.failure.at})` : ''}`,
        // a forEach mapping's failed items, one a line
        ...(r.failure.items ?? []).map((i: any) => `    item ${i.index}: ${i.stage} failed: ${i.cause}${i.at ? ` (${i.at})` : ''}`),
      ]
    : [];

/** `herald requests show|replay ID`: one call on /admin/receipts, printed (or as JSON); an error answer on stderr with exit 1 */
function byId(name: string, call: (c: AdminClient, id: string) => Promise<AdminAnswer>, show: (body: any) => string[], failedNow: (body: any) => boolean) {
  return async (argv: string[], io: CliIo): Promise<number> => {
    const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options });
    const id = positionals[0];
    if (!id || positionals.length > 1) {
      io.err(`herald requests ${name}: one request (receipt) id is needed. usage: herald requests ${name} ID`);
      return 2;
    }
    const answer = await gatewayAnswer(`requests ${name}`, values, io, (c) => call(c, encodeURIComponent(id)));
    if (typeof answer === 'number') return answer;
    for (const text of values.json ? [JSON.stringify(answer.body, null, 2)] : show(answer.body)) io.out(text);
    return failedNow(answer.body) ? 1 : 0;
  };
}

export const requestsShowCommand = byId(
  'show',
  (c, id) => c.call('GET', `/receipts/${id}`),
  (r) => [
    line(r),
    ...failed(r),
    r.payload ? `  payload kept until ${r.payload.expiresAt}: herald requests replay ${r.id}` : '  payload not kept: it cannot be replayed',
    ...r.replays.map((x: any) => `  replayed as ${line(x)}`),
  ],
  () => false,
);

/** exit 1 when the replay failed again: a script sees that the fix did not take */
export const requestsReplayCommand = byId('replay', (c, id) => c.call('POST', `/receipts/${id}/replay`), (r) => [line(r), ...failed(r)], (r) => r.status >= 400);

/** one receipt as a row of the list: what it got, its failure's stage and cause when its mapping failed */
const row = (r: any) => [r.receivedAt, String(r.status), r.path, r.mappingId ?? '-', r.failure ? `${r.failure.stage} failed: ${r.failure.cause}` : r.outcome, r.id];
const HEADER = ['TIME', 'STATUS', 'PATH', 'MAPPING', 'RESULT', 'ID'];

/** `herald requests list [--failed] [--mapping ID] [--limit N] [--json]`: the newest receipts of /admin/receipts */
export async function requestsListCommand(argv: string[], io: CliIo): Promise<number> {
  const { values } = parseArgs({ args: argv, options: listOptions });
  const limit = values.limit;
  if (limit !== undefined && !(/^\d+$/.test(limit) && Number(limit) >= 1 && Number(limit) <= 1000)) {
    io.err(`herald requests list: --limit must be an integer from 1 to 1000 (got "${limit}")`);
    return 2;
  }
  const query = new URLSearchParams({ ...(values.failed && { failed: 'true' }), ...(values.mapping !== undefined && { mapping: values.mapping }), ...(limit !== undefined && { limit }) });
  const answer = await gatewayAnswer('requests list', values, io, (c) => c.call('GET', `/receipts${query.size ? `?${query}` : ''}`));
  if (typeof answer === 'number') return answer;
  const receipts = answer.body.data as unknown[];
  if (values.json) io.out(JSON.stringify(receipts, null, 2));
  else if (!receipts.length) io.out(values.failed ? 'no failed requests' : 'no requests');
  else for (const text of textTable([HEADER, ...receipts.map(row)])) io.out(text);
  return 0;
}
