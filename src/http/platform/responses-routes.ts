import { Hono } from 'hono';
import type { Logger } from 'pino';
import type { AgentDirectory } from '../../agents/agent-directory.js';
import { responseStore, type ResponseRecord } from '../../agents/response-record.js';
import { openResponseTurn, type ResponseTurnDeps } from '../../agents/response-turn.js';
import type { HeraldConfig } from '../../config/schema.js';
import { HeraldError } from '../../errors.js';
import { mayUseAgent, type ApiPrincipal } from '../../platform/api-keys.js';
import { parseJsonBody, readBody } from '../read-body.js';
import { requireAgent } from './agents-routes.js';
import { fileCitations } from './citation-annotations.js';
import { functionCallItem, outputMessage, outputTextPart, refusalPart, responseObject, headOf, type ResponseHead } from './response-object.js';
import { inputMessages, parseResponsesRequest, responsesClientTools } from './responses-request.js';
import { openaiError, sseResponse } from './sse-response.js';

export interface ResponsesRoutesDeps {
  config: HeraldConfig;
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
export function responsesRoutes(deps: ResponsesRoutesDeps): Hono {
  const app = new Hono();
  const responses = responseStore(deps.turns.state);

  /** a stored response the caller's key may see (one of an agent it may use) */
  const stored = async (id: string, principal: ApiPrincipal): Promise<ResponseRecord> => {
    const record = await responses.get(id);
    if (!record || !mayUseAgent(principal, record.agentId)) throw new HeraldError('HERALD_RESPONSE_NOT_FOUND', `No response "${id}".`, { param: 'response_id' });
    return record;
  };

  app.get('/responses/:id', async (c) => {
    const record = await stored(c.req.param('id'), c.get('principal'));
    return c.json(responseObject(headOf(record), record));
  });

  app.delete('/responses/:id', async (c) => {
    const record = await stored(c.req.param('id'), c.get('principal'));
    await responses.delete(record.id);
    return c.json({ id: record.id, object: 'response.deleted', deleted: true });
  });

  app.post('/responses', async (c) => {
    const bytes = await readBody(c, { maxBytes: MAX_BODY_BYTES, idleTimeoutMs: 30_000 });
    c.set('bodyBytes', bytes.byteLength);
    const body = parseResponsesRequest(parseJsonBody(bytes));
    const agent = requireAgent(deps.agents, c.get('principal'), body.model, 'model');
    const store = body.store !== false;
    const metadata = body.metadata ?? {};
    const tools = responsesClientTools(body);
    const input = inputMessages(body.input);
    const turn = await openResponseTurn(deps.turns, {
      agent,
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
      echo: tools.echo,
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

    let sequence_number = 0;
    return sseResponse(
      c,
      async ({ send, flush, signal }) => {
        const emit = (type: string, fields: Record<string, unknown>) => send({ type, sequence_number: sequence_number++, ...fields });
        emit('response.created', { response: responseObject(head) });
        emit('response.in_progress', { response: responseObject(head) });
        // items are added as the model starts them: the message on its first text or refusal, a function call on its first piece
        let outputs = 0;
        let message: { item_id: string; output_index: number; parts: number } | undefined;
        type Part = { item_id: string; output_index: number; content_index: number };
        let textAt: Part | undefined;
        let refusalAt: Part | undefined;
        const openMessage = () => {
          if (message) return message;
          message = { item_id: turn.outputItemId, output_index: outputs++, parts: 0 };
          emit('response.output_item.added', { output_index: message.output_index, item: outputMessage(turn.outputItemId, '', [], 'in_progress') });
          return message;
        };
        const openPart = (part: ReturnType<typeof outputTextPart> | ReturnType<typeof refusalPart>): Part => {
          const { item_id, output_index } = openMessage();
          const at = { item_id, output_index, content_index: message!.parts++ };
          emit('response.content_part.added', { ...at, part });
          return at;
        };
        const openText = () => (textAt ??= openPart(outputTextPart('', [])));
        // OpenAI's refusal events (https://platform.openai.com/docs/api-reference/responses-streaming/response/refusal/delta):
        // a `refusal` content part, then response.refusal.delta pieces, then response.refusal.done
        const openRefusal = () => (refusalAt ??= openPart(refusalPart('')));
        const callIndex = new Map<number, number>();
        const run = turn.run({ stream: true, signal });
        let step = await run.next();
        for (; !step.done; step = await run.next()) {
          const piece = step.value;
          if (piece.type === 'delta') {
            const first = !textAt;
            emit('response.output_text.delta', { ...openText(), delta: piece.text, logprobs: [] });
            // the first token is written at once, not after the rest of the upstream read is worked through
            if (first) flush();
            continue;
          }
          if (piece.type === 'refusal') {
            emit('response.refusal.delta', { ...openRefusal(), delta: piece.text });
            continue;
          }
          const item_id = turn.callItemId(piece.index);
          let output_index = callIndex.get(piece.index);
          if (output_index === undefined) {
            callIndex.set(piece.index, (output_index = outputs++));
            const call = { id: item_id, call_id: piece.id ?? '', name: piece.name ?? '', arguments: '' };
            emit('response.output_item.added', { output_index, item: functionCallItem(call, 'in_progress') });
          }
          if (piece.arguments) emit('response.function_call_arguments.delta', { item_id, output_index, delta: piece.arguments });
        }
        const { record } = step.value;
        if (message || !record.toolCalls?.length) {
          // an answer with no text and no refusal still has its (empty) text part
          if (!refusalAt && !record.refusal) openText();
          if (textAt) {
            const part = outputTextPart(record.output, record.knowledge);
            part.annotations.forEach((annotation, annotation_index) => emit('response.output_text.annotation.added', { ...textAt, annotation_index, annotation }));
            emit('response.output_text.done', { ...textAt, text: record.output, logprobs: [] });
            emit('response.content_part.done', { ...textAt, part });
          }
          if (record.refusal) {
            const at = openRefusal();
            emit('response.refusal.done', { ...at, refusal: record.refusal });
            emit('response.content_part.done', { ...at, part: refusalPart(record.refusal) });
          }
          emit('response.output_item.done', {
            output_index: message!.output_index,
            item: outputMessage(turn.outputItemId, record.output, record.knowledge, 'completed', record.refusal),
          });
        }
        (record.toolCalls ?? []).forEach((call, i) => {
          const output_index = callIndex.get(i) ?? outputs++;
          emit('response.function_call_arguments.done', { item_id: call.id, output_index, name: call.name, arguments: call.arguments });
          emit('response.output_item.done', { output_index, item: functionCallItem(call) });
        });
        const done = responseObject(head, record);
        emit(done.status === 'incomplete' ? 'response.incomplete' : 'response.completed', { response: done });
      },
      {
        pingMs: deps.config.platform.streamPingMs,
        onError: log,
        // OpenAI's stream error event has the error's fields at the top; the official client throws on `error`
        typed: {
          errorEvent: (error) => {
            const e = openaiError(error);
            return { type: 'error', code: e.code, message: e.message, param: e.param, sequence_number: sequence_number++, error: e };
          },
        },
      },
    );
  });

  return app;
}
