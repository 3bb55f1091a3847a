import { OpenAPIHono } from '@hono/zod-openapi';
import type { Logger } from 'pino';
import type { AgentDirectory } from '../../../agents/agent-directory.js';
import type { ResponseTurnDeps } from '../../../runtime/turns/responses/response-turn.js';
import type { HeraldConfig } from '../../../config/schema.js';
import type { VectorStores } from '../../../knowledge-stores/vector-stores.js';
import { HeraldError } from '../../../errors.js';
import { parseJsonBody, readBody } from '../../request/read-body.js';
import { deleteResponse, openResponse, storedResponse } from '../../../runtime/turns/responses/responses.js';
import { fileCitations } from '../citation-annotations.js';
import { responseObject, headOf, type ResponseHead } from './response-object.js';
import { responseEventStream } from './response-event-stream.js';
import { fileSearchOf, inputMessages, parseResponsesRequest, responsesClientTools } from './responses-request.js';
import { mcpApprovals, mcpToolsOf } from './responses-mcp-request.js';
import { sseResponse } from '../../exchange/sse-response.js';
import { serveDocumented } from '../../openapi/documented-route.js';
import { responsesApi } from './responses-api.js';
import { declaredParams } from '../request-param.js';

export interface ResponsesRoutesDeps {
  config: HeraldConfig;
  /** what a file_search tool searches */
  vectorStores: VectorStores;
  turns: ResponseTurnDeps;
  agents: AgentDirectory;
  logger: Logger;
}

const MAX_BODY_BYTES = 4 * 1024 * 1024;

/** what a log may say of a failure: its kind and code, never an upstream body */
const failureFields = (error: unknown) => ({ error: error instanceof Error ? error.name : 'Error', ...(error instanceof HeraldError && { code: error.code }) });

/**
 * OpenAI's Responses API where `model` is a digital employee: POST /v1/responses (plain and
 * streamed as typed events), GET and DELETE /v1/responses/:id.
 */
export function responsesRoutes(deps: ResponsesRoutesDeps): OpenAPIHono {
  const app = new OpenAPIHono();
  serveDocumented(app, responsesApi.create, async (c) => {
    const bytes = await readBody(c, { maxBytes: MAX_BODY_BYTES, idleTimeoutMs: 30_000 });
    c.set('bodyBytes', bytes.byteLength);
    const body = parseResponsesRequest(parseJsonBody(bytes));
    const principal = c.get('principal');
    const store = body.store !== false;
    const metadata = body.metadata ?? {};
    const tools = responsesClientTools(body);
    const input = inputMessages(body.input);
    const fileSearch = fileSearchOf(body);
    const { agent, turn } = await openResponse(deps, principal, {
      model: body.model,
      input: input.messages,
      inputParam: (i) => `input[${input.itemOf[i]}].call_id`,
      instructions: body.instructions ?? undefined,
      previousResponseId: body.previous_response_id ?? undefined,
      store,
      metadata: body.metadata ?? undefined,
      options: {
        temperature: body.temperature ?? undefined,
        maxTokens: body.max_output_tokens ?? undefined,
        user: body.user ?? undefined,
        ...(tools.extra && { extra: tools.extra }),
      },
      clientTools: tools.use,
      ...(fileSearch && {
        fileSearch: {
          vectorStoreIds: fileSearch.tool.vector_store_ids.map((id, j) => ({ id, param: `tools[${fileSearch.index}].vector_store_ids[${j}]` })),
          maxResults: fileSearch.tool.max_num_results ?? undefined,
          includeResults: body.include?.includes('file_search_call.results') ?? false,
        },
      }),
      echo: tools.echo,
      mcp: mcpToolsOf(body),
      approvals: mcpApprovals(body.input),
      signal: c.req.raw.signal,
    });
    const head: ResponseHead = {
      id: turn.id,
      createdAt: turn.createdAt,
      agentId: agent.id,
      instructions: body.instructions ?? null,
      previousResponseId: body.previous_response_id ?? null,
      maxOutputTokens: body.max_output_tokens ?? null,
      temperature: body.temperature ?? null,
      metadata,
      store,
      ...tools.echo,
    };
    const log = (error: unknown) => deps.logger.warn({ ...failureFields(error), reqId: c.get('requestId'), agent: agent.id }, 'response failed');

    if (!body.stream) {
      const run = turn.run({ signal: c.req.raw.signal });
      let step = await run.next().catch((error) => {
        log(error);
        throw error;
      });
      while (!step.done) step = await run.next();
      return c.json(responseObject(head, step.value.record));
    }

    const stream = responseEventStream(turn, head);
    return sseResponse(c, stream.produce, { pingMs: deps.config.platform.streamPingMs, onError: log, typed: { errorEvent: stream.errorEvent } });
  });

  serveDocumented(app, responsesApi.get, async (c) => {
    const record = await storedResponse(deps, c.get('principal'), declaredParams(responsesApi.get, c).id);
    return c.json(responseObject(headOf(record), record));
  });

  serveDocumented(app, responsesApi.delete, async (c) => {
    const record = await storedResponse(deps, c.get('principal'), declaredParams(responsesApi.delete, c).id);
    await deleteResponse(deps, record);
    return c.json({ id: record.id, object: 'response.deleted', deleted: true });
  });

  return app;
}
