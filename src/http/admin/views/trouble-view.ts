import { z } from '@hono/zod-openapi';
import type { ConfigTroubleView } from '../../../runtime/operator/config-trouble.js';
import type { AlertRecord } from '../../../store/port.js';
import { isoString, isoTime } from '../../../time/iso-time.js';
import type { ToolServerHealth } from '../../../tools/mcp/server-health.js';
import type { PartHealth } from '../../../utils/health-ledger.js';

const time = z.string().openapi({ format: 'date-time', example: '2026-11-22T10:00:00.000Z' });

const partSchema = z
  .object({
    name: z.string().openapi({ description: 'A model provider (models.providers.<id>, or a catalogue one: openai, openrouter, ...) or a channel (channels.<id>).' }),
    lastOkAt: time.nullable().openapi({ description: 'When its last call (provider) or delivery attempt (channel) succeeded; null: none has since this process started.' }),
    lastFailureAt: time.nullable(),
    cause: z.string().nullable().openapi({ description: 'Why the last one failed: the network cause or the upstream status and message, never a body or a key.' }),
    consecutiveFailures: z.number().int().openapi({ description: 'Failures since the last success.' }),
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
    providers: z.array(partSchema).openapi({ description: "Model providers whose last call from this replica failed; a success clears one." }),
    channels: z.array(partSchema).openapi({ description: "Channels whose last delivery attempt from this replica failed; a delivered reply clears one." }),
    toolServers: z
      .array(z.object({ server: z.string(), state: z.string(), lastError: z.string().nullable() }))
      .openapi({ description: 'MCP servers not ready (failed, or connecting again after a failure), as this replica sees them.' }),
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
}

const part = (p: PartHealth) => ({ name: p.name, lastOkAt: isoTime(p.lastOkAt), lastFailureAt: isoTime(p.lastFailureAt), cause: p.cause, consecutiveFailures: p.consecutiveFailures });

/** trouble first: nothing in any list means all clear */
export function troubleView(open: AlertRecord[], sources: TroubleSources): TroubleView {
  const config = sources.config?.();
  return {
    alerts: open.map((a) => ({ id: a.id, condition: a.condition, subject: a.subject, summary: a.summary, raisedAt: isoString(a.raisedAt) })),
    refusedReload: config?.refusedReload ? { ...config.refusedReload, at: isoString(config.refusedReload.at) } : null,
    restartRequired: config?.restartRequired ? { ...config.restartRequired, at: isoString(config.restartRequired.at) } : null,
    mappings: config?.mappings ?? [],
    warnings: config?.warnings ?? [],
    providers: (sources.providers?.() ?? []).map(part),
    channels: (sources.channels?.() ?? []).map(part),
    // a server connecting for the first time is not trouble yet; one connecting after a failure is
    toolServers: (sources.toolServers?.() ?? [])
      .filter((s) => s.state === 'failed' || (s.state === 'connecting' && s.lastError !== undefined))
      .map((s) => ({ server: s.server, state: s.state, lastError: s.lastError ?? null })),
  };
}
