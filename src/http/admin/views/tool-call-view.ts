import { z } from '@hono/zod-openapi';
import { maskArguments } from '../../../runtime/approvals/mask-arguments.js';
import type { ToolCallRecord, ToolCallStatus } from '../../../store/port.js';
import { isoTime as iso } from '../../../time/iso-time.js';

/** A tool call as the admin API shows it (a run's `toolCalls`, an approval): its arguments masked, never as the model wrote them. */
const time = z.string().nullable().openapi({ format: 'date-time', example: '2026-11-22T10:00:00.000Z' });

export const toolCallStatuses = ['waiting_approval', 'running', 'succeeded', 'failed', 'timed_out', 'interrupted', 'denied', 'refused'] as const satisfies readonly ToolCallStatus[];

export const toolApprovalSchema = z
  .object({
    decision: z.enum(['approved', 'denied', 'expired']).openapi({ description: 'expired: tools.approvalTimeout passed before anyone decided (by `timeout`).' }),
    by: z.string().openapi({ description: 'Who decided: `gateway-token` (the admin API with the Bearer), `console:<8 hex>` (a console session, told apart by a digest of its id), or `timeout`.' }),
    at: time,
    reason: z.string().nullable(),
  })
  .openapi('ToolApproval');

export const toolCallSchema = z
  .object({
    id: z.string().openapi({ description: "herald's id of the call (tc_…): the id the approval routes take." }),
    callId: z.string().openapi({ description: "The model's id of the call (its tool_calls[].id)." }),
    turn: z.number().int().openapi({ description: 'Which model turn of the run asked for it, from 0.' }),
    server: z.string().openapi({ description: 'The MCP server (herald: the built-ins).' }),
    tool: z.string(),
    arguments: z.unknown().openapi({ description: 'The arguments (JSON, or the text the model wrote when it is not JSON) with secret-looking values masked as ••••: values of keys such as token, secret, password, key, authorization, credential, cookie, and values shaped like tokens.' }),
    readOnly: z.boolean(),
    status: z.enum(toolCallStatuses).openapi({ description: 'waiting_approval (held for a person; an approved call stays so until it runs), running, succeeded, failed, timed_out, interrupted (its process died mid-call; not run again), denied (by a person or the timeout), refused (by policy).' }),
    result: z.string().nullable().openapi({ description: 'The result given to the model (cut to tools.maxResultChars).' }),
    error: z.string().nullable(),
    createdAt: time,
    startedAt: time,
    finishedAt: time,
    durationMs: z.number().nullable(),
    approvalRequired: z.boolean(),
    approvalExpiresAt: time.openapi({ description: 'When an unanswered approval is refused (tools.approvalTimeout after the call).' }),
    approval: toolApprovalSchema.nullable(),
  })
  .openapi('ToolCall');

export const toolCallView = (c: ToolCallRecord): z.infer<typeof toolCallSchema> => ({
  id: c.id,
  callId: c.callId,
  turn: c.turn,
  server: c.server,
  tool: c.tool,
  arguments: maskArguments(c.arguments),
  readOnly: c.readOnly,
  status: c.status,
  result: c.result ?? null,
  error: c.error ?? null,
  createdAt: iso(c.createdAt),
  startedAt: iso(c.startedAt ?? null),
  finishedAt: iso(c.finishedAt ?? null),
  durationMs: c.durationMs ?? null,
  approvalRequired: c.approvalRequired,
  approvalExpiresAt: iso(c.approvalExpiresAt ?? null),
  approval: c.approval ? { decision: c.approval.decision, by: c.approval.by, at: iso(c.approval.at), reason: c.approval.reason ?? null } : null,
});
