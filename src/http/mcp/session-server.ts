import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ElicitResultSchema,
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
  type CallToolResult,
  type ServerNotification,
} from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import type { AgentDirectory } from '../../agents/agent-directory.js';
import type { AgentTurnDeps } from '../../agents/agent-turn.js';
import type { HeraldConfig } from '../../config/schema.js';
import { HeraldError } from '../../errors.js';
import type { ApiPrincipal } from '../../accounts/api-keys.js';
import { askAgent, type AskInput } from '../../runtime/mcp-endpoint/ask-agent.js';
import { DOCUMENT_TEMPLATE, listDocuments, readDocument, type DocumentSource } from '../../runtime/mcp-endpoint/document-resources.js';
import { governedCall } from '../../runtime/mcp-endpoint/governed-call.js';
import type { CallsInFlight } from '../../runtime/mcp-endpoint/calls-in-flight.js';
import type { McpClients } from '../../runtime/mcp-endpoint/mcp-clients.js';
import { approvalTimeoutMs, cachedKeyOffer, keyOffer, type OfferedTool } from '../../runtime/mcp-endpoint/key-offer.js';
import { searchDocuments, type AgentSearch, type SearchInput } from '../../runtime/mcp-endpoint/search-documents.js';
import type { McpSession } from './mcp-sessions.js';

/** what a session's server needs of the gateway */
export interface SessionServerDeps {
  config: HeraldConfig;
  agents: AgentDirectory;
  turns: AgentTurnDeps;
  search: AgentSearch;
  documents: DocumentSource;
  logger: Logger;
  /** a tools/call answered: its key, which kind of tool, and whether it was an error (/metrics) */
  onCall?: (key: string, kind: OfferedTool['kind'], isError: boolean) => void;
  /** a governed call's end (/metrics: herald_tool_calls_total with source="mcp"); an ask_<agent> turn's own calls are its agent's */
  onGovernedCallFinished?: AgentTurnDeps['onToolCallFinished'];
  /** how often a call waiting for a person on the console reads its record again */
  approvalPollMs?: number;
  /** marks governed calls while they execute (a successor records them interrupted) */
  inFlight?: CallsInFlight;
  /** remembers each session's client, which the console names beside its calls */
  clients?: McpClients;
}

/** herald's name and version at /mcp, in initialize's serverInfo */
const SERVER_INFO = { name: 'herald', title: 'herald', version: '0.1.0' };

/**
 * The SDK's MCP server of one session at /mcp: tools/list and tools/call over what the session's
 * key is offered (key-offer.ts), read again at each request so a reload's grants apply at once,
 * and its agents' documents as resources. A tool's failure is an `isError` result naming why; a
 * request the protocol refuses (an unknown tool or resource) is a JSON-RPC error.
 */
export function sessionServer(deps: SessionServerDeps, session: () => McpSession | undefined, principal: ApiPrincipal): Server {
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: { listChanged: true }, resources: { subscribe: true, listChanged: true } },
    instructions: "herald's digital employees (ask_<agent>) and the tools your API key is granted; every call is governed and on herald's record.",
  });
  // the key's servers are each tried once before its tools are first listed (a server connecting at start lists none yet)
  // the key as presented with the latest request (a reload may have changed its agents or grants)
  const key = () => session()?.principal ?? principal;
  const offer = async () => {
    const { tools } = key();
    if (tools) await deps.turns.toolbox?.untilTried({ tools });
    return cachedKeyOffer(deps, key());
  };
  const subscriptions = new Set<string>();

  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: (await offer()).tools.map((t) => ({
      name: t.name,
      ...(t.title && { title: t.title }),
      description: t.description,
      inputSchema: t.inputSchema as { type: 'object' },
      ...(t.outputSchema && { outputSchema: t.outputSchema as { type: 'object' } }),
      annotations: t.annotations,
    })),
  }));

  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const current = await offer();
    const tool = current.byName(request.params.name);
    // an ungranted tool does not exist for this key, exactly as an unknown one
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name.slice(0, 200)}`);
    const args = request.params.arguments ?? {};
    const open = session();
    if (open) {
      open.calls++;
      open.inFlight++;
    }
    const progressToken = extra._meta?.progressToken;
    let progress = 0;
    const notify = (message: string) => {
      if (progressToken === undefined) return;
      progress++;
      void extra.sendNotification({ method: 'notifications/progress', params: { progressToken, progress, message } } as ServerNotification).catch(() => undefined);
    };
    let result: CallToolResult;
    try {
      result = await callTool(deps, tool, args, key(), current.agents, {
        sessionId: open?.id ?? '',
        requestId: String(extra.requestId),
        signal: extra.signal,
        notify,
        elicit: canElicit(server) ? (question) => elicit(extra.sendRequest, question) : undefined,
        grant: current.granted,
      });
    } catch (error) {
      result = errorResult(error, deps.logger);
    } finally {
      if (open) open.inFlight--;
    }
    deps.onCall?.(key().name, tool.kind, result.isError === true);
    return result;
  });

  server.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources: await listDocuments(deps.documents, (await offer()).agents) }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
    resourceTemplates: [{ uriTemplate: DOCUMENT_TEMPLATE, name: 'document', title: "An agent's knowledge document", description: 'The text herald indexed of a knowledge document of an agent this key may ask.', mimeType: 'text/plain' }],
  }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    try {
      return { contents: [await readDocument(deps.documents, (await offer()).agents, request.params.uri)] };
    } catch (error) {
      if (error instanceof HeraldError) throw new McpError(-32002, error.message, { uri: request.params.uri });
      throw error;
    }
  });
  server.setRequestHandler(SubscribeRequestSchema, async (request) => {
    subscriptions.add(request.params.uri);
    return {};
  });
  server.setRequestHandler(UnsubscribeRequestSchema, async (request) => {
    subscriptions.delete(request.params.uri);
    return {};
  });
  (server as Server & { heraldSubscriptions: Set<string> }).heraldSubscriptions = subscriptions;
  return server;
}

/** the URIs a session's client subscribed to */
export const subscriptionsOf = (server: Server): Set<string> => (server as Server & { heraldSubscriptions?: Set<string> }).heraldSubscriptions ?? new Set();

interface CallContext {
  sessionId: string;
  requestId: string;
  signal: AbortSignal;
  notify: (message: string) => void;
  elicit?: (question: string) => Promise<boolean>;
  grant: ReturnType<typeof keyOffer>['granted'];
}

async function callTool(deps: SessionServerDeps, tool: OfferedTool, args: Record<string, unknown>, principal: ApiPrincipal, agents: ReturnType<typeof keyOffer>['agents'], ctx: CallContext): Promise<CallToolResult> {
  switch (tool.kind) {
    case 'ask': {
      ctx.notify(`${tool.agent.id} is working on it`);
      let told = 0;
      const answer = await askAgent(deps, principal, tool.agent, args as unknown as AskInput, ctx.signal, (chars) => {
        // one notification per 2,000 characters written, not one per token
        if (chars - told < 2000 && told > 0) return;
        told = chars;
        ctx.notify(`${tool.agent.id} is writing (${chars} characters)`);
      });
      const cited = answer.citations.length ? `\n\nSources:\n${answer.citations.map((c) => `[${c.index}] ${c.filename} (${c.uri})`).join('\n')}` : '';
      return { content: [{ type: 'text', text: `${answer.reply}${cited}` }], structuredContent: { ...answer } };
    }
    case 'search': {
      const results = await searchDocuments(deps.search, agents, args as unknown as SearchInput);
      const text = results.length ? results.map((r, i) => `[${i + 1}] ${r.filename} (${r.uri})\n${r.content}`).join('\n\n') : 'No passage found.';
      return { content: [{ type: 'text', text }], structuredContent: { results } };
    }
    case 'governed': {
      const { toolCalls } = deps.turns;
      if (!ctx.grant || !toolCalls) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${tool.name}`);
      const result = await governedCall(
        { toolCalls, approvalTimeoutMs: approvalTimeoutMs(deps.config), onCallFinished: deps.onGovernedCallFinished, inFlight: deps.inFlight },
        {
          tools: ctx.grant,
          spec: tool.spec,
          args,
          keyName: principal.name,
          sessionId: ctx.sessionId,
          requestId: ctx.requestId,
          signal: ctx.signal,
          approval: {
            elicit: ctx.elicit,
            waiting: (waitedMs) => ctx.notify(`waiting for a person's approval on herald's Approvals page (${Math.round(waitedMs / 1000)}s)`),
            pollMs: deps.approvalPollMs,
          },
        },
      );
      return { content: [{ type: 'text', text: result.text }], isError: result.isError, _meta: { 'herald/toolCall': result.callRecordId, 'herald/status': result.status } };
    }
  }
}

function canElicit(server: Server): boolean {
  const elicitation = server.getClientCapabilities()?.elicitation as { form?: unknown } | undefined;
  // `{}` declares form mode (the spec's backwards-compatible reading); `{ url: {} }` alone does not
  return elicitation !== undefined && (Object.keys(elicitation).length === 0 || elicitation.form !== undefined);
}

type SendRequest = Parameters<Parameters<Server['setRequestHandler']>[1]>[1]['sendRequest'];

/** asks the client's user, on the call's own stream (related to the request it answers) */
async function elicit(sendRequest: SendRequest, question: string): Promise<boolean> {
  const answer = await sendRequest(
    { method: 'elicitation/create', params: { mode: 'form', message: question, requestedSchema: { type: 'object', properties: {} } } },
    ElicitResultSchema,
  );
  return answer.action === 'accept';
}

/** a tool's failure as the client is told it: a HeraldError's message (it names the field), anything else logged and said in general */
function errorResult(error: unknown, logger: Logger): CallToolResult {
  if (error instanceof McpError) throw error;
  if (error instanceof HeraldError) return { content: [{ type: 'text', text: error.message }], isError: true, _meta: { 'herald/error': error.code } };
  logger.error({ err: error }, 'an MCP tool call failed');
  return { content: [{ type: 'text', text: 'the call failed inside herald; the operator finds it in the log' }], isError: true };
}
