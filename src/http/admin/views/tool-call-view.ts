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

const resultPartSchema = z
  .discriminatedUnion('kind', [
    z.object({ kind: z.literal('image'), mimeType: z.string(), bytes: z.number().int(), data: z.string().optional().openapi({ description: 'base64, only for an image of at most 48 KiB (a thumbnail)' }) }),
    z.object({ kind: z.literal('audio'), mimeType: z.string(), bytes: z.number().int() }),
    z.object({ kind: z.literal('resource_link'), uri: z.string(), name: z.string(), mimeType: z.string().optional(), description: z.string().optional() }),
    z.object({ kind: z.literal('resource'), uri: z.string(), mimeType: z.string().optional(), size: z.number().int().openapi({ description: "a text resource's characters, a blob's bytes" }), text: z.boolean().optional() }),
    z.object({ kind: z.literal('structured'), json: z.string().openapi({ description: 'the structured content as JSON text, cut to 16 KiB' }) }),
  ])
  .openapi('ToolResultPart');

export const toolCallSchema = z
  .object({
    id: z.string().openapi({ description: "herald's id of the call (tc_…): the id the approval routes take." }),
    callId: z.string().openapi({ description: "The model's id of the call (its tool_calls[].id)." }),
    turn: z.number().int().openapi({ description: 'Which model turn of the run asked for it, from 0.' }),
    server: z.string().openapi({ description: 'The MCP server (herald: the built-ins).' }),
    tool: z.string(),
    arguments: z.unknown().openapi({ description: 'The arguments (JSON, or the text the model wrote when it is not JSON) with secret-looking values masked as ••••: values of keys such as token, secret, password, key, authorization, credential, cookie, and values shaped like tokens.' }),
    readOnly: z.boolean(),
    keyName: z.string().nullable().openapi({ description: 'The API key the call was made with: a chat completion\'s or response\'s key, or the key an MCP client connected to /mcp with; null for a hook run.' }),
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
    content: z.array(resultPartSchema).nullable().openapi({ description: "What the result held besides text (its text items are in `result`): images, audio, resource links, embedded resources and structured content, summarized." }),
    task: z
      .object({ server: z.string(), taskId: z.string() })
      .nullable()
      .openapi({ description: 'The task the call became at its server (MCP tasks): a herald restarted while it ran polls it for its result.' }),
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
  keyName: c.keyName || null,
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
  content: c.content ?? null,
  task: c.task ? { server: c.task.server, taskId: c.task.taskId } : null,
});
