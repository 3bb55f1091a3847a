import type { McpApprovalAnswer } from '../../../runtime/turns/responses/response-approvals.js';
import type { McpToolRequest } from '../../../runtime/turns/responses/response-tools.js';
import type { ResponsesRequest } from './responses-request.js';

/** the request's `mcp` tools as the turn takes them; `authorization` is sent as OpenAI sends it, a Bearer token */
export function mcpToolsOf(body: ResponsesRequest): McpToolRequest[] {
  const tools: McpToolRequest[] = [];
  (body.tools ?? []).forEach((tool, i) => {
    if (tool.type !== 'mcp') return;
    const headers = { ...tool.headers, ...(tool.authorization !== undefined && { Authorization: `Bearer ${tool.authorization}` }) };
    tools.push({
      param: `tools[${i}]`,
      serverLabel: tool.server_label,
      ...(tool.server_url !== undefined && { serverUrl: tool.server_url }),
      ...(tool.server_description !== undefined && { serverDescription: tool.server_description }),
      ...(tool.allowed_tools != null && { allowedTools: tool.allowed_tools }),
      ...(tool.require_approval != null && { requireApproval: tool.require_approval }),
      ...((tool.headers != null || tool.authorization !== undefined) && { headers }),
    });
  });
  return tools;
}

/** the request's `mcp_approval_response` items */
export function mcpApprovals(input: ResponsesRequest['input']): McpApprovalAnswer[] {
  if (typeof input === 'string') return [];
  const answers: McpApprovalAnswer[] = [];
  input.forEach((item, i) => {
    if (item.type !== 'mcp_approval_response') return;
    answers.push({ approvalRequestId: item.approval_request_id, approve: item.approve, ...(item.reason != null && { reason: item.reason }), param: `input[${i}]` });
  });
  return answers;
}
