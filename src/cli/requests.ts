import { parseArgs } from 'node:util';
import type { PluginDefinition } from '../plugin-sdk/sdk.js';
import { adminClient, type AdminAnswer, type AdminClient } from './admin-client.js';
import type { CliIo } from './cli-io.js';

const options = { config: { type: 'string', short: 'c' }, url: { type: 'string' }, json: { type: 'boolean' } } as const;

/** one receipt as a line: status, outcome, path, mapping, what it started */
const line = (r: any) =>
  `${r.id}  ${r.status} ${r.outcome}  ${r.path}${r.mappingId ? `  mapping ${r.mappingId}` : ''}${r.runId ? `  run ${r.runId}` : ''}${r.eventId != null ? `  event ${r.eventId}` : ''}${r.replayOf ? `  replay of ${r.replayOf}` : ''}`;
/** where and why its mapping failed, when it did */
const failed = (r: any) => (r.failure ? [`  ${r.failure.stage} of ${r.failure.mappingId} failed: ${r.failure.cause}${r.failure.at ? ` (${r.failure.at})` : ''}`] : []);

/** `herald requests show|replay ID`: one call on /admin/receipts, printed (or as JSON); an error answer on stderr with exit 1 */
function byId(name: string, call: (c: AdminClient, id: string) => Promise<AdminAnswer>, show: (body: any) => string[], failedNow: (body: any) => boolean) {
  return async (argv: string[], io: CliIo, builtins: PluginDefinition[]): Promise<number> => {
    const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options });
    const id = positionals[0];
    if (!id || positionals.length > 1) {
      io.err(`herald requests ${name}: one request (receipt) id is needed. usage: herald requests ${name} ID`);
      return 2;
    }
    const client = await adminClient(values, builtins);
    if (typeof client === 'string') {
      io.err(`herald requests ${name}: ${client}`);
      return 2;
    }
    let answer: AdminAnswer;
    try {
      answer = await call(client, encodeURIComponent(id));
    } catch (error) {
      io.err(`herald requests ${name}: ${(error as Error).message}`);
      return 1;
    }
    if (answer.status >= 400) {
      io.err(`herald requests ${name}: ${answer.status} ${answer.body.error ?? ''}`);
      return 1;
    }
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
