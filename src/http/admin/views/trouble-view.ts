import { z } from '@hono/zod-openapi';
import type { ConfigTroubleView } from '../../../runtime/operator/config-trouble.js';
import type { PartKind, SharedPart } from '../../../runtime/operator/shared-health.js';
import type { AlertRecord } from '../../../store/port.js';
import { isoString, isoTime } from '../../../time/iso-time.js';
import { isTroubled, type ToolServerHealth } from '../../../tools/mcp/server-health.js';
import type { PartHealth } from '../../../utils/health-ledger.js';

const time = z.string().openapi({ format: 'date-time', example: '2026-11-22T10:00:00.000Z' });

const replicaField = z.string().openapi({ description: 'The replica that saw it (host:pid:id); the one answering is `self` in the overview.', example: 'web-1:7:3f2a9c1e' });
const staleField = z.boolean().openapi({ description: 'Its replica has not written for 90 s: it stopped without a word (a crash); dropped after 15 minutes.' });

const partSchema = z
  .object({
    name: z.string().openapi({ description: 'A model provider (models.providers.<id>, or a catalogue one: openai, openrouter, ...) or a channel (channels.<id>).' }),
    replica: replicaField,
    since: time.nullable().openapi({ description: 'When its failures began (the first since its last success).' }),
    lastOkAt: time.nullable().openapi({ description: "When its last call (provider) or delivery attempt (channel) from this replica succeeded; null: none has since this process started, or the part is another replica's." }),
    lastFailureAt: time.nullable(),
    cause: z.string().nullable().openapi({ description: 'Why the last one failed: the network cause or the upstream status and message, never a body or a key.' }),
    consecutiveFailures: z.number().int().openapi({ description: "Failures since the last success (another replica's: as of its last write, at most 30 s old while it runs)." }),
    stale: staleField,
  })
  .openapi('PartHealth');

const refusedReloadSchema = z
  .object({
    at: time,
    reason: z.string().openapi({ description: 'What asked for it: POST /admin/reload, SIGHUP, mappingsDir changed.' }),
    faults: z.array(z.string()).openapi({ description: 'Why it was refused, each naming its key or mapping; the running config stayed.' }),
  })
  .openapi('RefusedReload');

const restartRequiredSchema = z
  .object({
    at: time,
    reason: z.string(),
    keys: z.array(z.string()).openapi({ description: 'Keys changed in the file that only a restart applies (docs/operations.md#reload lists them); their running value stays.', example: ['gateway.port'] }),
  })
  .openapi('RestartRequired');

export const mappingFaultSchema = z
  .object({
    file: z.string().openapi({ description: 'The mapping file, or `hooks.mappings` for the config file\'s own.' }),
    index: z.number().int().nullable().openapi({ description: "The mapping's place in the file's list (0 for a file of one mapping); null for a fault of the whole file (not valid YAML)." }),
    id: z.string().nullable(),
    field: z.string().nullable().openapi({ example: 'messageTemplate' }),
    fault: z.string().openapi({ description: 'The fault as `herald config check` prints it (a JSONata error with its position in the expression).' }),
    line: z.number().int().nullable().openapi({ description: 'The line of the field (or the mapping) in the file, 1-based.' }),
    column: z.number().int().nullable(),
  })
  .openapi('MappingFault');

export const troubleSchema = z
  .object({
    alerts: z
      .array(z.object({ id: z.string(), condition: z.string(), subject: z.string(), summary: z.string(), raisedAt: time }))
      .openapi({ description: 'The open alerts (every replica\'s, from the store), oldest first.' }),
    refusedReload: refusedReloadSchema.nullable().openapi({ description: 'The last reload this replica refused, until one applies.' }),
    restartRequired: restartRequiredSchema.nullable().openapi({ description: 'The keys the last applied reload refused, waiting for a restart (each reload names them again until then).' }),
    mappings: z.array(mappingFaultSchema).openapi({ description: "The mappings the refused reload could not load (they do not run: the running ones stay)." }),
    warnings: z.array(z.string()).openapi({ description: 'What the running config loaded with but deserves attention (also in the log at start or reload).' }),
    self: replicaField.openapi({ description: 'The replica that answered: its own parts carry this id.' }),
    providers: z.array(partSchema).openapi({ description: "Model providers whose last call failed, on any replica sharing the store (one entry per replica); that replica's next success clears one." }),
    channels: z.array(partSchema).openapi({ description: "Channels whose last delivery attempt failed, on any replica sharing the store; that replica's next delivered reply clears one." }),
    toolServers: z
      .array(z.object({ server: z.string(), replica: replicaField, state: z.string(), since: time, lastError: z.string().nullable(), stale: staleField }))
      .openapi({ description: 'MCP servers not ready (failed, or connecting again after a failure), on any replica sharing the store.' }),
  })
  .openapi('Trouble');

export type TroubleView = z.infer<typeof troubleSchema>;

/** what feeds the trouble section: the store's open alerts, and this process's own records */
export interface TroubleSources {
  config?: () => ConfigTroubleView;
  /** the providers whose last call failed */
  providers?: () => PartHealth[];
  /** the channels whose last delivery attempt failed */
  channels?: () => PartHealth[];
  toolServers?: () => ToolServerHealth[];
  /** this replica's id among those sharing the store */
  replica?: string;
  /** the other replicas' unhealthy parts, from the store (PostgreSQL); none on SQLite (one process) */
  others?: () => Promise<OthersParts>;
}

type OthersParts = (SharedPart & { stale: boolean })[];

type PartView = z.infer<typeof partSchema>;
type ToolServerTrouble = TroubleView['toolServers'][number];

const part = (replica: string) => (p: PartHealth): PartView => ({
  name: p.name,
  replica,
  since: isoTime(p.since),
  lastOkAt: isoTime(p.lastOkAt),
  lastFailureAt: isoTime(p.lastFailureAt),
  cause: p.cause,
  consecutiveFailures: p.consecutiveFailures,
  stale: false,
});

const sharedPart = (p: SharedPart & { stale: boolean }): PartView => ({
  name: p.name,
  replica: p.replica,
  since: isoString(p.since),
  lastOkAt: null,
  lastFailureAt: isoTime(p.lastFailureAt),
  cause: p.cause,
  consecutiveFailures: p.consecutiveFailures,
  stale: p.stale,
});

/** a part's entries side by side, whichever replica saw them */
const byName = <T extends { replica: string }>(name: (t: T) => string) => (a: T, b: T) => name(a).localeCompare(name(b)) || a.replica.localeCompare(b.replica);

/** this replica's parts (from its memory, the freshest) and the other replicas' (from the store) */
function sharedTrouble(sources: TroubleSources, others: OthersParts): Pick<TroubleView, 'self' | 'providers' | 'channels' | 'toolServers'> {
  const self = sources.replica ?? 'this';
  const of = (kind: PartKind) => others.filter((p) => p.kind === kind);
  const mine = (sources.toolServers?.() ?? [])
    .filter(isTroubled)
    .map((s): ToolServerTrouble => ({ server: s.server, replica: self, state: s.state, since: isoString(s.since), lastError: s.lastError ?? null, stale: false }));
  const theirs = of('toolServer').map((p): ToolServerTrouble => ({ server: p.name, replica: p.replica, state: p.state ?? 'failed', since: isoString(p.since), lastError: p.cause, stale: p.stale }));
  return {
    self,
    providers: [...(sources.providers?.() ?? []).map(part(self)), ...of('provider').map(sharedPart)].sort(byName((p) => p.name)),
    channels: [...(sources.channels?.() ?? []).map(part(self)), ...of('channel').map(sharedPart)].sort(byName((p) => p.name)),
    toolServers: [...mine, ...theirs].sort(byName((s) => s.server)),
  };
}

/** trouble first: nothing in any list means all clear */
export function troubleView(open: AlertRecord[], sources: TroubleSources, others: OthersParts = []): TroubleView {
  const config = sources.config?.();
  return {
    alerts: open.map((a) => ({ id: a.id, condition: a.condition, subject: a.subject, summary: a.summary, raisedAt: isoString(a.raisedAt) })),
    refusedReload: config?.refusedReload ? { ...config.refusedReload, at: isoString(config.refusedReload.at) } : null,
    restartRequired: config?.restartRequired ? { ...config.restartRequired, at: isoString(config.restartRequired.at) } : null,
    mappings: config?.mappings ?? [],
    warnings: config?.warnings ?? [],
    ...sharedTrouble(sources, others),
  };
}
