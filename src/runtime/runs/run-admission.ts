import type { MappingTraffic } from '../../config/sections/traffic-schema.js';
import type { AgentAction } from '../../mappings/hook-action.js';
import type { CoalescedList, RunAdmission } from '../../store/port.js';
import { parseDuration } from '../duration.js';

/**
 * The one turn of coalesced events: each event's message, numbered, in the order they arrived,
 * under a heading (a single event's message stays as it came). Numbers and heading are appended,
 * never counted ahead, so the store adds an event to a run without rewriting the ones before it.
 */
export const coalescedList: CoalescedList = { heading: 'Events that arrived together, in order:', marker: (n) => `\n\n${n}. ` };

/** how the store admits a run of a governed mapping (undefined: ungoverned, the run is simply queued) */
export function runAdmission(action: AgentAction, traffic: MappingTraffic | undefined): RunAdmission | undefined {
  if (!traffic) return undefined;
  const { concurrency, rate, coalesce } = traffic;
  return {
    mappingId: action.source.mappingId,
    ...(concurrency !== undefined && { concurrency }),
    ...(rate && { rate: { runs: rate.runs, perMs: parseDuration(rate.per), reject: rate.overflow === 'reject' } }),
    ...(coalesce && { coalesce: { key: action.coalesceKey ?? '', windowMs: coalesce.windowMs, list: coalescedList, maxEvents: coalesce.maxEvents, maxBytes: coalesce.maxBytes } }),
  };
}
