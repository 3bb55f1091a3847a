import { z } from 'zod';

/** a header name (an HTTP token) */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** a header value: no line breaks or NUL (so none can smuggle a header of its own) */
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
/** headers the transport sets itself, or that would send the request elsewhere than its URL says */
const RESERVED_HEADERS = new Set([
  'host', 'connection', 'content-length', 'content-type', 'accept', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'keep-alive', 'expect',
  'proxy-authorization', 'proxy-connection', 'forwarded', 'x-forwarded-for', 'x-forwarded-host', 'x-forwarded-proto', 'mcp-session-id', 'mcp-protocol-version', 'last-event-id',
]);

const mcpToolFilter = z.object({ tool_names: z.array(z.string().min(1)).max(1000).nullish(), read_only: z.boolean().nullish() }).loose();

/**
 * OpenAI's remote MCP tool (Tool.Mcp of the official client's types;
 * https://platform.openai.com/docs/guides/tools-remote-mcp): a server the model may call through
 * herald, named by `server_label` alone (a configured tools.mcpServers entry) or by `server_url`
 * (under a prefix of tools.remoteAllowlist).
 */
export const mcpTool = z
  .object({
    type: z.literal('mcp'),
    server_label: z
      .string()
      .regex(/^[A-Za-z0-9](?:[A-Za-z0-9-]|_(?!_))*$/, 'letters, digits, - and single _ (it prefixes the tools\' names: <server_label>__<tool>)')
      .max(32)
      .describe('The server: a configured tools.mcpServers name, or the label of a server_url.'),
    server_url: z.string().min(1).max(2048).optional().describe('A Streamable HTTP MCP endpoint under a prefix of tools.remoteAllowlist.'),
    server_description: z.string().max(2048).optional().describe("Said to the model with the server's tools."),
    allowed_tools: z.union([z.array(z.string().min(1)).max(1000), mcpToolFilter]).nullish().describe('Tool names, or { tool_names, read_only }: the tools the model is offered.'),
    require_approval: z
      .union([z.enum(['always', 'never']), z.object({ always: mcpToolFilter.nullish(), never: mcpToolFilter.nullish() }).loose()])
      .nullish()
      .describe('Which calls wait for an mcp_approval_response: "always" (the default), "never", or { always, never } filters.'),
    headers: z
      .record(
        z.string().regex(HEADER_NAME, 'a header name').refine((name) => !RESERVED_HEADERS.has(name.toLowerCase()), 'a header the transport sets itself'),
        z.string().max(8192).regex(HEADER_VALUE, 'a header value without line breaks'),
      )
      .nullish()
      .describe('Sent to a remote server with each request (never logged or stored).'),
    authorization: z.string().min(1).max(8192).regex(HEADER_VALUE, 'a token without line breaks').optional().describe('An OAuth access token, sent as Authorization: Bearer.'),
  })
  .loose();

export type McpTool = z.infer<typeof mcpTool>;

/** the client's decision on an approval request of the previous response */
export const mcpApprovalResponseItem = z
  .object({
    type: z.literal('mcp_approval_response'),
    approval_request_id: z.string().min(1).max(128),
    approve: z.boolean(),
    reason: z.string().max(4096).nullish(),
    id: z.string().nullish(),
  })
  .loose();

/** an mcp tool as the response echoes it: its headers and token are the client's secrets, sent to its server, never kept or shown */
export function withoutSecrets(tool: McpTool): McpTool {
  const { headers: _headers, authorization: _authorization, ...kept } = tool;
  return kept;
}
