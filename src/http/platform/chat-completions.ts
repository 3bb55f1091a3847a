import type { ServerResponse } from 'node:http';
import { Hono, type Context } from 'hono';
import type { Logger } from 'pino';
import type { AgentDirectory } from '../../agents/agent-directory.js';
import { prepareTurn } from '../../agents/agent-turn.js';
import type { HeraldConfig } from '../../config/schema.js';
import { deadline, type Deadline } from '../../deadline.js';
import { HeraldError } from '../../errors.js';
import type { KnowledgeIndex } from '../../knowledge/knowledge-index.js';
import type { ModelRegistry } from '../../models/model-registry.js';
import type { KnowledgePassage, ModelUsage } from '../../models/provider.js';
import { randomHex } from '../../platform/random-hex.js';
import type { Store } from '../../store/port.js';
import { parseJsonBody, readBody } from '../read-body.js';
import { requireAgent } from './agents-routes.js';
import { parseChatRequest } from './chat-request.js';
import { openConversation, recordMessages } from './conversation.js';
import { sseResponse } from './sse-response.js';

export interface ChatRoutesDeps {
  config: HeraldConfig;
  store: Store;
  knowledge: KnowledgeIndex;
  models: ModelRegistry;
  agents: AgentDirectory;
  logger: Logger;
}

/** chat bodies carry whole conversations, but nothing near an upload */
const CHAT_MAX_BODY_BYTES = 4 * 1024 * 1024;
/** passages retrieved per question */
const PASSAGES = 4;

const wordCount = (s: string) => (s.match(/\S+/g) ?? []).length;

/** a provider failure as the caller may see it: the upstream status, never its body */
function modelFailure(error: unknown, timedOut: boolean, timeoutSeconds: number): HeraldError {
  if (error instanceof HeraldError) return error;
  if (timedOut) return new HeraldError('HERALD_MODEL_FAILED', `The model did not answer within ${timeoutSeconds}s.`, { cause: error });
  const status = (error as { status?: unknown }).status;
  const suffix = typeof status === 'number' ? ` (HTTP ${status})` : '';
  return new HeraldError('HERALD_MODEL_FAILED', `The agent's model provider failed${suffix}.`, { cause: error });
}

/** what a log may say of a provider failure: its kind and status, never the upstream body */
const failureFields = (error: unknown) => ({
  error: error instanceof Error ? error.name : 'Error',
  ...(typeof (error as { status?: unknown }).status === 'number' && { upstreamStatus: (error as { status: number }).status }),
  ...(error instanceof HeraldError && { code: error.code, message: error.message }),
});

const citationsOf = (passages: KnowledgePassage[]) =>
  passages.map((p, i) => ({ index: i + 1, document_id: p.documentId, filename: p.filename, chunk_id: p.chunkId, score: p.score, content: p.content }));

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

/** POST /v1/chat/completions: OpenAI's chat API where `model` is a digital employee. */
export function chatRoutes(deps: ChatRoutesDeps): Hono {
  const app = new Hono();
  const timeoutSeconds = deps.config.agents.defaults.timeoutSeconds;

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
    const conversation = await openConversation(deps.store.sessions, agent.id, body);
    const knowledge = deps.knowledge.search(agent.id, conversation.question, PASSAGES);

    // the client's own system messages join the agent's instructions, after them
    const clientSystem = conversation.history.filter((m) => m.role === 'system').map((m) => m.content);
    const turnAgent = clientSystem.length ? { ...agent, instructions: [agent.instructions, ...clientSystem].filter(Boolean).join('\n\n') } : agent;
    // the time limit, GC-safe (AbortSignal.any with AbortSignal.timeout is not on Node 20: deadline.ts)
    let limit: Deadline | undefined;
    const timedOut = () => limit?.timedOut ?? false;
    const turn = (signal: AbortSignal) => {
      limit = deadline(timeoutSeconds * 1000, signal);
      return prepareTurn(
        {
          agent: turnAgent,
          purpose: 'chat',
          history: conversation.history,
          prompt: conversation.question,
          question: conversation.question,
          knowledge,
          temperature: body.temperature ?? undefined,
          maxTokens: body.max_completion_tokens ?? body.max_tokens ?? undefined,
          user: body.user ?? undefined,
          signal: limit.signal,
        },
        deps.models,
        deps.config,
      );
    };
    const estimateUsage = (prompt: { content: string }[], text: string): ModelUsage => {
      const prompt_tokens = prompt.reduce((n, m) => n + wordCount(m.content), 0);
      return { prompt_tokens, completion_tokens: wordCount(text), total_tokens: prompt_tokens + wordCount(text) };
    };
    const recordAnswer = (text: string) =>
      deps.store.sessions.append(conversation.sessionKey, {
        role: 'assistant',
        content: text,
        createdAt: Date.now(),
        meta: { agentId: agent.id, ...(knowledge.length && { citations: knowledge.map((p) => p.chunkId) }) },
      });

    await recordMessages(deps.store.sessions, conversation, conversation.incoming);
    const id = `chatcmpl-${randomHex(12)}`;
    const created = Math.floor(Date.now() / 1000);
    const extensions = { conversation_id: conversation.id, ...(body.citations !== false && { citations: citationsOf(knowledge) }) };
    c.header('x-conversation-id', conversation.id);

    if (!body.stream) {
      const { provider, request } = turn(clientGone(c));
      const response = await provider
        .complete(request)
        .catch((error) => {
          deps.logger.warn({ ...failureFields(error), reqId: c.get('requestId'), agent: agent.id }, 'chat completion failed');
          throw modelFailure(error, timedOut(), timeoutSeconds);
        })
        .finally(() => limit?.clear());
      await recordAnswer(response.text);
      return c.json({
        id,
        object: 'chat.completion',
        created,
        model: agent.id,
        system_fingerprint: null,
        choices: [{ index: 0, message: { role: 'assistant', content: response.text, refusal: null }, logprobs: null, finish_reason: response.finishReason ?? 'stop' }],
        usage: response.usage ?? estimateUsage(request.messages, response.text),
        ...extensions,
      });
    }

    const includeUsage = body.stream_options?.include_usage === true;
    return sseResponse(
      async (send, signal) => {
        const chunk = (choices: unknown[], more: Record<string, unknown> = {}) => ({
          id,
          object: 'chat.completion.chunk',
          created,
          model: agent.id,
          system_fingerprint: null,
          choices,
          ...(includeUsage && { usage: null }),
          conversation_id: conversation.id,
          ...more,
        });
        // the role chunk goes out at once: the client sees the stream open before the model answers
        send(chunk([{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }]));
        const { provider, request } = turn(signal);
        let text = '';
        let usage: ModelUsage | undefined;
        let finishReason = 'stop';
        try {
          for await (const event of provider.stream(request)) {
            if (event.type === 'usage') usage = event.usage;
            else if (event.type === 'finish') finishReason = event.reason;
            else if (event.text) {
              text += event.text;
              send(chunk([{ index: 0, delta: { content: event.text }, logprobs: null, finish_reason: null }]));
            }
          }
        } catch (error) {
          throw modelFailure(error, timedOut(), timeoutSeconds);
        } finally {
          limit?.clear();
        }
        await recordAnswer(text);
        const { conversation_id: _, ...finalExtras } = extensions;
        send(chunk([{ index: 0, delta: {}, logprobs: null, finish_reason: finishReason }], finalExtras));
        if (includeUsage) send(chunk([], { usage: usage ?? estimateUsage(request.messages, text), ...finalExtras }));
      },
      {
        pingMs: deps.config.platform.streamPingMs,
        headers: { 'x-conversation-id': conversation.id },
        onError: (error) => deps.logger.warn({ ...failureFields(error), reqId: c.get('requestId'), agent: agent.id }, 'chat stream failed'),
      },
    );
  });

  return app;
}
