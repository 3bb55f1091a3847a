import type { HeraldConfig } from '../../config/schema.js';
import type { AlertTarget } from '../../config/sections/alerts-schema.js';
import type { RunRecord, ToolCallRecord } from '../../store/port.js';
import { derivedDeliveryId } from '../alerts/alert-notices.js';
import { maskArguments } from './mask-arguments.js';

/** a notice is read in a chat: longer arguments are cut there (the console shows them whole) */
const ARGUMENTS_SHOWN = 1500;
const WILDCARD_HOSTS = new Set(['0.0.0.0', '::', '[::]', '']);

/**
 * The delivery id of one call's notice to one target, derived from both: announcing again (the
 * sweep catching up on a notice a dead process never queued, a second replica) adds no second row.
 */
export const approvalNoticeId = (callId: string, target: AlertTarget): string => derivedDeliveryId(`approval:${callId}:${target.channel}:${target.to ?? ''}`);

/** where a person decides: the admin API's paths, and the console's page of the call */
export function decisionPaths(callId: string, gateway: HeraldConfig['gateway']): { approve: string; deny: string; console: string } {
  const id = encodeURIComponent(callId);
  // the address herald listens on, unless it listens on every interface (then only the path is known)
  const host = gateway.host.includes(':') && !gateway.host.startsWith('[') ? `[${gateway.host}]` : gateway.host;
  const origin = WILDCARD_HOSTS.has(gateway.host) ? '' : `http://${host}:${gateway.port}`;
  return { approve: `POST /admin/approvals/${id}/approve`, deny: `POST /admin/approvals/${id}/deny`, console: `${origin}/console#/approvals/${id}` };
}

/** the mapping that resolved a run's action (re-runs keep it) */
export const mappingOf = (run: RunRecord | undefined): string | null => ((run?.action.source as { mappingId?: string } | undefined)?.mappingId ?? null);

/** what a target receives: the tool, its arguments masked, the run's context, until when, how to decide */
export function approvalNoticeText(call: ToolCallRecord, run: RunRecord | undefined, gateway: HeraldConfig['gateway']): string {
  const args = JSON.stringify(maskArguments(call.arguments));
  const shown = args.length > ARGUMENTS_SHOWN ? `${args.slice(0, ARGUMENTS_SHOWN)}… (cut: the console shows all)` : args;
  const mapping = call.mappingId ?? mappingOf(run);
  const owner = call.ownerKind === 'run' ? `run ${call.ownerId}${run ? ` (${run.name})` : ''}` : `${call.ownerKind} ${call.ownerId}`;
  const paths = decisionPaths(call.id, gateway);
  return [
    `herald approval needed: ${call.tool} on ${call.server}`,
    `Agent ${call.agentId}${mapping ? ` · mapping ${mapping}` : ''} · ${owner}`,
    `Arguments: ${shown}`,
    call.approvalExpiresAt ? `Refused unless decided by ${new Date(call.approvalExpiresAt).toISOString()}.` : null,
    `Approve: ${paths.approve}`,
    `Deny: ${paths.deny} {"reason": "…"}`,
    `Console: ${paths.console}`,
  ]
    .filter((line) => line !== null)
    .join('\n');
}
