import { providerFailureFields } from '../../models/provider-failure.js';
import type { ServerResponse } from 'node:http';
import { Hono, type Context } from 'hono';
import type { Logger } from 'pino';
import type { AgentDirectory } from '../../agents/agent-directory.js';
import type { AgentTurnDeps, ToolCallPiece, TurnDelta, TurnOutcome } from '../../agents/agent-turn.js';
import { openChatTurn } from '../../agents/chat-turn.js';
import type { HeraldConfig } from '../../config/schema.js';
import { HeraldError } from '../../errors.js';
import type { KnowledgePassage } from '../../knowledge/knowledge-passage.js';
import { randomHex } from '../../platform/random-hex.js';
import { urlCitations } from './citation-annotations.js';
import { parseJsonBody, readBody } from '../read-body.js';
import { requireAgent } from './agents-routes.js';
import { chatClientTools, chatInputMessages, parseChatRequest } from './chat-request.js';
import { sseResponse } from './sse-response.js';

export interface ChatRoutesDeps {
  config: HeraldConfig;
  /** the agent turn's needs: models, sessions, knowledge */
  turns: AgentTurnDeps;
  agents: AgentDirectory;
  logger: Logger;
}

/** chat bodies carry whole conversations, but nothing near an upload */
const CHAT_MAX_BODY_BYTES = 4 * 1024 * 1024;

/** what a log may say of a provider failure: its kind and status, never the upstream body */
function failureFields(error: unknown) {
  const cause = error instanceof HeraldError && error.cause !== undefined ? error.cause : error;
  return {
    error: cause instanceof Error ? cause.name : 'Error',
    ...providerFailureFields(cause),
    ...(error instanceof HeraldError && { code: error.code, message: error.message }),
  };
}

const citationsOf = (passages: KnowledgePassage[]) =>
  passages.map((p, i) => ({ index: i + 1, document_id: p.documentId, filename: p.filename, chunk_id: p.chunkId, score: p.score, content: p.content }));

/** the outcome of a turn run without streaming */
async function finished(turn: AsyncGenerator<TurnDelta, TurnOutcome, undefined>): Promise<TurnOutcome> {
  for (;;) {
    const step = await turn.next();
    if (step.done) return step.value;
  }
}

/**
 * Aborts when the client goes away before its answer went out, as @hono/node-server's
 * `c.req.raw.signal` does; but touching `c.req.raw` makes the adapter build a whole fetch
 * Request (headers, body stream, AbortController) per completion, a measurable part of it.
 */
function clientGone(c: Context): AbortSignal {
  const outgoing = (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing;
  if (!outgoing || typeof outgoing.once !== 'function') return c.req.raw.signal;
  const abort = new AbortController();
  outgoing.once('close', () => {
    if (!outgoing.writableFinished) abort.abort('Client connection prematurely closed.');
  });
  return abort.signal;
}

/**
 * The answer message: with tool calls and no text, `content` is null (OpenAI's shape); the
 * knowledge annotations mark spans of the content, so a message without content has none (the
 * answer that follows the tool results carries them; `citations` are there either way).
 */
function assistantMessage(outcome: TurnOutcome, annotations: ReturnType<typeof urlCitations>) {
  const calls = outcome.toolCalls.length > 0;
  return {
    role: 'assistant' as const,
    content: calls && !outcome.text ? null : outcome.text,
    refusal: null,
    annotations: calls && !outcome.text ? [] : annotations,
    ...(calls && { tool_calls: outcome.toolCalls }),
  };
}

/** a streamed piece of a tool call as OpenAI's delta has it: id, type and name on the first piece of call `index` */
const toolCallDelta = (piece: ToolCallPiece) => ({
  index: piece.index,
  ...(piece.id && { id: piece.id, type: 'function' as const }),
  function: { ...(piece.name && { name: piece.name }), arguments: piece.arguments ?? '' },
});

/** POST /v1/chat/completions: OpenAI's chat API where `model` is a digital employee. */
export function chatRoutes(deps: ChatRoutesDeps): Hono {
  const app = new Hono();

  app.post('/chat/completions', async (c) => {
    const bytes = await readBody(c, { maxBytes: CHAT_MAX_BODY_BYTES, idleTimeoutMs: 30_000 }).catch((error) => {
      if (error instanceof HeraldError && error.code === 'HERALD_PAYLOAD_TOO_LARGE') {
        throw new HeraldError('HERALD_PAYLOAD_TOO_LARGE', `The request body is larger than ${CHAT_MAX_BODY_BYTES} bytes.`, { openaiCode: 'request_too_large', headers: error.headers });
      }
      throw error;
    });
    c.set('bodyBytes', bytes.byteLength);
    const body = parseChatRequest(parseJsonBody(bytes));
    const agent = requireAgent(deps.agents, c.get('principal'), body.model, 'model');
    const tools = chatClientTools(body);
    const chat = await openChatTurn(deps.turns, {
      agent,
      conversationId: body.conversation_id ?? undefined,
      messages: chatInputMessages(body.messages),
      metadata: body.metadata ?? undefined,
      options: {
        temperature: body.temperature ?? undefined,
        maxTokens: body.max_completion_tokens ?? body.max_tokens ?? undefined,
        user: body.user ?? undefined,
        ...(tools.extra && { extra: tools.extra }),
      },
      clientTools: tools.use,
    });
    const id = `chatcmpl-${randomHex(12)}`;
    const created = Math.floor(Date.now() / 1000);
    const conversation_id = chat.conversationId;
    const extras = (outcome: TurnOutcome) => (body.citations !== false ? { citations: citationsOf(outcome.knowledge) } : {});
    const origin = new URL(c.req.url).origin;
    const annotations = (outcome: TurnOutcome) => urlCitations(outcome.text, outcome.knowledge, origin);
    c.header('x-conversation-id', conversation_id);

    if (!body.stream) {
      const outcome = await finished(chat.run({ signal: clientGone(c) })).catch((error) => {
        deps.logger.warn({ ...failureFields(error), reqId: c.get('requestId'), agent: agent.id }, 'chat completion failed');
        throw error;
      });
      return c.json({
        id,
        object: 'chat.completion',
        created,
        model: agent.id,
        system_fingerprint: null,
        choices: [{ index: 0, message: assistantMessage(outcome, annotations(outcome)), logprobs: null, finish_reason: outcome.finishReason }],
        usage: outcome.usage,
        conversation_id,
        ...extras(outcome),
      });
    }

    const includeUsage = body.stream_options?.include_usage === true;
    return sseResponse(
      c,
      async (send, signal) => {
        const chunk = (choices: unknown[], more: Record<string, unknown> = {}) => ({
          id,
          object: 'chat.completion.chunk',
          created,
          model: agent.id,
          system_fingerprint: null,
          choices,
          ...(includeUsage && { usage: null }),
          conversation_id,
          ...more,
        });
        // the role chunk goes out at once: the client sees the stream open before the model answers
        send(chunk([{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }]));
        const turn = chat.run({ stream: true, signal });
        let step = await turn.next();
        for (; !step.done; step = await turn.next()) {
          const delta = step.value.type === 'delta' ? { content: step.value.text } : { tool_calls: [toolCallDelta(step.value)] };
          send(chunk([{ index: 0, delta, logprobs: null, finish_reason: null }]));
        }
        const outcome = step.value;
        // OpenAI streams a message's annotations on a delta; herald has them once the answer is whole
        const cited = outcome.toolCalls.length && !outcome.text ? [] : annotations(outcome);
        send(chunk([{ index: 0, delta: cited.length ? { annotations: cited } : {}, logprobs: null, finish_reason: outcome.finishReason }], extras(outcome)));
        if (includeUsage) send(chunk([], { usage: outcome.usage, ...extras(outcome) }));
      },
      {
        pingMs: deps.config.platform.streamPingMs,
        headers: { 'x-conversation-id': conversation_id },
        onError: (error) => deps.logger.warn({ ...failureFields(error), reqId: c.get('requestId'), agent: agent.id }, 'chat stream failed'),
      },
    );
  });

  return app;
}
