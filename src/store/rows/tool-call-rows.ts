import type { ToolApproval, ToolCallRecord, ToolResultPart, ToolTaskHandle } from '../contracts/tool-calls-port.js';

/**
 * A tool call's row as both adapters store it (same column names); `Json` is how the approval
 * column comes back: text (SQLite) or parsed (PostgreSQL). Booleans are 0/1 on SQLite.
 */
export interface ToolCallRow<Json = unknown> {
  id: string;
  call_id: string;
  owner_kind: ToolCallRecord['ownerKind'];
  owner_id: string;
  agent_id: string;
  mapping_id: string | null;
  key_name: string | null;
  turn: number;
  server: string;
  tool: string;
  arguments: string;
  read_only: number | boolean;
  status: ToolCallRecord['status'];
  result: string | null;
  error: string | null;
  /** BIGINT columns: PostgreSQL's driver reads them as text */
  created_at: number | string;
  started_at: number | string | null;
  finished_at: number | string | null;
  duration_ms: number | string | null;
  approval_required: number | boolean;
  approval_expires_at: number | string | null;
  approval: Json | null;
  /** written by `finish` and `setTask` only, never by an insert */
  content?: Json | null;
  task?: Json | null;
  /** written by inserts (and `start`), never read into a record */
  lease_owner?: string | null;
  lease_until?: number | string | null;
}

/** the columns in the order `toolCallValues` gives them */
export const TOOL_CALL_COLUMNS = [
  'id', 'call_id', 'owner_kind', 'owner_id', 'agent_id', 'mapping_id', 'key_name', 'turn', 'server', 'tool', 'arguments', 'read_only',
  'status', 'result', 'error', 'created_at', 'started_at', 'finished_at', 'duration_ms', 'approval_required', 'approval_expires_at', 'approval',
  'lease_owner', 'lease_until',
] as const satisfies readonly (keyof ToolCallRow)[];

/** the columns a read gives: the inserted ones, then those only updates write */
export const TOOL_CALL_READ_COLUMNS = [...TOOL_CALL_COLUMNS.filter((c) => c !== 'lease_owner' && c !== 'lease_until'), 'content', 'task'] as const satisfies readonly (keyof ToolCallRow)[];

const numberOrNull = (v: number | string | null) => (v === null ? null : Number(v));

/** a row as a port record; `json` reads the approval column as the adapter stores it */
export const toToolCall = <Json>(r: ToolCallRow<Json>, json: (value: Json) => unknown): ToolCallRecord => ({
  id: r.id,
  callId: r.call_id,
  ownerKind: r.owner_kind,
  ownerId: r.owner_id,
  agentId: r.agent_id,
  mappingId: r.mapping_id,
  keyName: r.key_name,
  turn: r.turn,
  server: r.server,
  tool: r.tool,
  arguments: r.arguments,
  readOnly: Boolean(r.read_only),
  status: r.status,
  result: r.result,
  error: r.error,
  createdAt: Number(r.created_at),
  startedAt: numberOrNull(r.started_at),
  finishedAt: numberOrNull(r.finished_at),
  durationMs: numberOrNull(r.duration_ms),
  approvalRequired: Boolean(r.approval_required),
  approvalExpiresAt: numberOrNull(r.approval_expires_at),
  approval: r.approval === null ? null : (json(r.approval) as ToolApproval),
  content: r.content == null ? null : (json(r.content) as ToolResultPart[]),
  task: r.task == null ? null : (json(r.task) as ToolTaskHandle),
});

/** a record's values in TOOL_CALL_COLUMNS' order, booleans as `bool` makes them, the approval as JSON text */
export const toolCallValues = <B>(c: ToolCallRecord, bool: (value: boolean) => B): unknown[] => [
  c.id, c.callId, c.ownerKind, c.ownerId, c.agentId, c.mappingId ?? null, c.keyName ?? null, c.turn, c.server, c.tool, c.arguments, bool(c.readOnly),
  c.status, c.result ?? null, c.error ?? null, c.createdAt, c.startedAt ?? null, c.finishedAt ?? null, c.durationMs ?? null,
  bool(c.approvalRequired), c.approvalExpiresAt ?? null, c.approval ? JSON.stringify(c.approval) : null,
  c.lease?.owner ?? null, c.lease?.until ?? null,
];

/** a running call with a lease (the partial index tool_calls_leased's condition, as written there) */
export const LEASED_RUNNING = "status = 'running' AND lease_owner IS NOT NULL";

/** the statuses a call ends in: `finish` never writes over them */
export const OPEN_TOOL_CALL = "status IN ('waiting_approval', 'running')";
/** a call still waiting for a person's decision (the partial index tool_calls_awaiting's condition, as written there) */
export const AWAITING_DECISION = "status = 'waiting_approval' AND approval IS NULL";
