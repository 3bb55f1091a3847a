import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { gatewayAnswer, type AdminAnswer, type AdminClient } from './admin-client.js';
import { textTable } from '../io/text-table.js';
import type { CliIo } from '../io/cli-io.js';

const common = { config: { type: 'string', short: 'c' }, url: { type: 'string' }, json: { type: 'boolean' } } as const;

/** a job in OpenClaw's cron shape from `herald cron add`'s flags (OpenClaw's names), or the flag at fault */
export function jobFromFlags(v: Record<string, string | boolean | undefined>): Record<string, unknown> | string {
  const str = (name: string) => (typeof v[name] === 'string' ? (v[name] as string) : undefined);
  const whens = (['at', 'every', 'cron'] as const).filter((w) => str(w) !== undefined);
  if (whens.length !== 1) return 'one of --at, --every or --cron is needed';
  const when = whens[0]!;
  const schedule = when === 'cron' ? { kind: 'cron', expr: str('cron'), ...(str('tz') && { tz: str('tz') }) } : when === 'at' ? { kind: 'at', at: str('at') } : { kind: 'every', every: str('every') };
  if (str('tz') && when !== 'cron') return '--tz goes with --cron';
  if ((str('system-event') === undefined) === (str('message') === undefined)) return 'one of --system-event or --message is needed';
  const session = str('session') ?? (str('message') !== undefined ? 'isolated' : 'main');
  if (session !== 'main' && session !== 'isolated') return '--session is main or isolated';
  const payload = str('message') !== undefined ? { kind: 'agentTurn', message: str('message'), ...(str('agent') && { agentId: str('agent') }) } : { kind: 'systemEvent', text: str('system-event') };
  const announce = v.announce === true || str('channel') !== undefined || str('to') !== undefined;
  const name = str('name');
  const slug = name?.toLowerCase().replace(/[^a-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 50);
  return {
    id: str('id') ?? (slug ? `${slug}-${randomBytes(3).toString('hex')}` : `job-${randomBytes(6).toString('hex')}`),
    ...(name && { name }),
    schedule,
    sessionTarget: session,
    payload,
    ...(str('wake') && { wakeMode: str('wake') }),
    ...(session === 'isolated' && { delivery: announce ? { mode: 'announce', ...(str('channel') && { channel: str('channel') }), ...(str('to') && { to: str('to') }) } : { mode: 'none' } }),
    ...(v['delete-after-run'] === true && { deleteAfterRun: true }),
  };
}

const when = (s: { kind: string; at?: string; every?: string; expr?: string; tz?: string }) =>
  s.kind === 'cron' ? `cron "${s.expr}"${s.tz ? ` ${s.tz}` : ''}` : s.kind === 'every' ? `every ${s.every}` : `at ${s.at}`;

const line = (s: any) => `${s.id}  ${s.enabled ? 'enabled ' : 'disabled'}  ${s.origin.padEnd(6)}  next ${s.nextDueAt ?? '-'}  ${when(s.job.schedule)}${s.job.name ? `  ${s.job.name}` : ''}`;
const fireLine = (f: any) => `${f.dueAt}  ${f.outcome}${f.run ? `  run ${f.run.id} ${f.run.status ?? '(gone)'}` : ''}${f.detail ? `  ${f.detail}` : ''}`;

/** runs one subcommand against the gateway: its answer printed (or as JSON) */
async function withGateway(name: string, values: { config?: string; url?: string; json?: boolean }, io: CliIo, fn: (client: AdminClient) => Promise<AdminAnswer>, show: (body: any) => string[]): Promise<number> {
  const answer = await gatewayAnswer(`cron ${name}`, values, io, fn);
  if (typeof answer === 'number') return answer;
  for (const text of values.json ? [JSON.stringify(answer.body, null, 2)] : show(answer.body)) io.out(text);
  return 0;
}

export async function cronAddCommand(argv: string[], io: CliIo): Promise<number> {
  const flags = ['name', 'id', 'at', 'every', 'cron', 'tz', 'session', 'system-event', 'message', 'agent', 'wake', 'channel', 'to'] as const;
  const { values } = parseArgs({
    args: argv,
    options: { ...common, ...Object.fromEntries(flags.map((f) => [f, { type: 'string' }])), announce: { type: 'boolean' }, 'delete-after-run': { type: 'boolean' } },
  });
  const job = jobFromFlags(values as Record<string, string | boolean | undefined>);
  if (typeof job === 'string') {
    io.err(`herald cron add: ${job}`);
    return 2;
  }
  return withGateway('add', values, io, (c) => c.call('POST', '/schedules', job), (s) => [`added ${s.id}`, line(s)]);
}

/**
 * The id a subcommand's argument names: a job's id, else the one job whose name it is (a name is
 * easier to remember than the id `add` made from it). Several jobs of that name: an answer that
 * lists their ids, so the caller chooses; none: the argument as given, for the gateway to answer 404.
 */
async function jobId(client: AdminClient, given: string): Promise<string | AdminAnswer> {
  const listed = await client.call('GET', '/schedules');
  if (listed.status >= 400) return listed;
  const jobs: Array<{ id: string; job: { name?: string } }> = listed.body.data ?? [];
  if (jobs.some((s) => s.id === given)) return given;
  const named = jobs.filter((s) => s.job.name === given);
  if (named.length > 1) return { status: 409, body: { error: `${named.length} jobs are named "${given}" (${named.map((s) => s.id).join(', ')}): give one id` } };
  return named[0]?.id ?? given;
}

/** `herald cron list|show|run|runs|enable|disable|rm`: one call each on /admin/schedules, the job named by its id or its name */
function byId(name: string, call: (c: AdminClient, id: string, limit: string | undefined) => Promise<AdminAnswer>, show: (body: any) => string[]) {
  return async (argv: string[], io: CliIo): Promise<number> => {
    const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { ...common, limit: { type: 'string' } } });
    const given = positionals[0];
    if (name !== 'list' && (!given || positionals.length > 1)) {
      io.err(`herald cron ${name}: one job id or name is needed. usage: herald cron ${name} ID|NAME`);
      return 2;
    }
    return withGateway(name, values, io, async (c) => {
      const id = given === undefined ? '' : await jobId(c, given);
      return typeof id === 'string' ? call(c, encodeURIComponent(id), values.limit) : id;
    }, show);
  };
}

/** one schedule as a row of the list, under a header row, in the one table form keys list and requests list use */
const row = (s: any) => [s.id, s.enabled ? 'enabled' : 'disabled', s.origin, s.nextDueAt ?? '-', when(s.job.schedule), s.job.name ?? '-'];
const HEADER = ['ID', 'STATUS', 'ORIGIN', 'NEXT', 'WHEN', 'NAME'];
export const cronListCommand = byId('list', (c) => c.call('GET', '/schedules'), (b) => (b.data.length ? textTable([HEADER, ...b.data.map(row)]) : ['no schedules']));
export const cronShowCommand = byId('show', (c, id) => c.call('GET', `/schedules/${id}`), (s) => [line(s), JSON.stringify(s.job, null, 2)]);
export const cronRunCommand = byId('run', (c, id) => c.call('POST', `/schedules/${id}/run`), (f) => [fireLine(f)]);
export const cronRunsCommand = byId('runs', (c, id, limit) => c.call('GET', `/schedules/${id}/runs${limit ? `?limit=${encodeURIComponent(limit)}` : ''}`), (b) => (b.data.length ? b.data.map(fireLine) : ['no runs yet']));
export const cronEnableCommand = byId('enable', (c, id) => c.call('PATCH', `/schedules/${id}`, { enabled: true }), (s) => [line(s)]);
export const cronDisableCommand = byId('disable', (c, id) => c.call('PATCH', `/schedules/${id}`, { enabled: false }), (s) => [line(s)]);
export const cronRmCommand = byId('rm', (c, id) => c.call('DELETE', `/schedules/${id}`), (b) => [`deleted ${b.id}`]);
