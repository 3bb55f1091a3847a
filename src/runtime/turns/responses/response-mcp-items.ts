import type { ToolCallRecord } from '../../../store/port.js';
import type { ResponseMcpApprovalRequest, ResponseMcpCall } from './response-record.js';

/**
 * A tool call's output items are named after its record (`tc_<hex>`): `mcp_<hex>` for the call,
 * `mcpr_<hex>` for its approval request, so an `mcp_approval_response` leads back to the record
 * with no table of its own.
 */
const hexOf = (recordId: string) => recordId.slice('tc_'.length);
export const mcpCallId = (recordId: string) => `mcp_${hexOf(recordId)}`;
export const approvalRequestId = (recordId: string) => `mcpr_${hexOf(recordId)}`;
export const recordIdOfApproval = (approvalRequestId: string): string | undefined =>
  /^mcpr_[a-f0-9]{32}$/.test(approvalRequestId) ? `tc_${approvalRequestId.slice('mcpr_'.length)}` : undefined;

/** the `mcp_call` item of a recorded call, as it stands */
export function mcpCallItem(record: ToolCallRecord): ResponseMcpCall {
  const done = record.status !== 'running' && record.status !== 'waiting_approval';
  return {
    type: 'mcp_call',
    id: mcpCallId(record.id),
    server_label: record.server,
    name: record.tool,
    arguments: record.arguments,
    output: record.status === 'succeeded' ? (record.result ?? '') : null,
    error: done && record.status !== 'succeeded' ? (record.error ?? record.status) : null,
    status: !done ? 'in_progress' : record.status === 'succeeded' ? 'completed' : 'failed',
    approval_request_id: record.approvalRequired ? approvalRequestId(record.id) : null,
  };
}

export function approvalRequestItem(record: ToolCallRecord): ResponseMcpApprovalRequest {
  return { type: 'mcp_approval_request', id: approvalRequestId(record.id), server_label: record.server, name: record.tool, arguments: record.arguments };
}
