import type { MappingTraffic } from '../../config/traffic-schema.js';
import type { AgentAction } from '../../mappings/hook-action.js';
import type { RunAdmission } from '../../store/port.js';
import { parseDuration } from '../duration.js';

/** the one turn of coalesced events: each event's message, numbered, in the order they arrived */
export function coalescedMessage(messages: string[]): string {
  if (messages.length === 1) return messages[0]!;
  return [`${messages.length} events arrived together:`, ...messages.map((message, i) => `${i + 1}. ${message}`)].join('\n\n');
}

/** how the store admits a run of a governed mapping (undefined: ungoverned, the run is simply queued) */
export function runAdmission(action: AgentAction, traffic: MappingTraffic | undefined): RunAdmission | undefined {
  if (!traffic) return undefined;
  const { concurrency, rate, coalesce } = traffic;
  return {
    mappingId: action.source.mappingId,
    ...(concurrency !== undefined && { concurrency }),
    ...(rate && { rate: { runs: rate.runs, perMs: parseDuration(rate.per), reject: rate.overflow === 'reject' } }),
    ...(coalesce && { coalesce: { key: action.coalesceKey ?? '', windowMs: coalesce.windowMs, message: coalescedMessage, maxEvents: coalesce.maxEvents, maxBytes: coalesce.maxBytes } }),
  };
}
