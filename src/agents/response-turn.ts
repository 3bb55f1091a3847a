import { deadline } from '../deadline.js';
import { HeraldError } from '../errors.js';
import type { ModelOptions } from '../models/provider.js';
import { randomHex } from '../platform/random-hex.js';
import type { SessionMessage, StateRepo } from '../store/port.js';
import type { AgentConfig } from './agent-directory.js';
import { agentTurn, type AgentTurnDeps, type TurnDelta, type TurnOutcome } from './agent-turn.js';
import type { ChatInputMessage } from './conversation.js';
import { modelFailure } from './model-call-error.js';
import { responseHistory, responseStore, type ResponseRecord } from './response-record.js';

export interface ResponseTurnDeps extends AgentTurnDeps {
  state: StateRepo;
}

export interface ResponseTurnInput {
  agent: AgentConfig;
  /** the request's input items as messages, the last user one being the new question */
  input: ChatInputMessage[];
  instructions?: string;
  previousResponseId?: string;
  /** false: answer without keeping the response (it cannot be fetched or continued) */
  store: boolean;
  metadata?: Record<string, string>;
  options?: ModelOptions;
}

export interface ResponseTurn {
  id: string;
  outputItemId: string;
  createdAt: number;
  /** runs the turn; its return value is the record (stored by then unless `store` was false) */
  run(options: { stream?: boolean; signal?: AbortSignal }): AsyncGenerator<TurnDelta, { record: ResponseRecord; outcome: TurnOutcome }, undefined>;
}

/**
 * A Responses API turn (POST /v1/responses) on the one agent turn: the previous response is
 * checked first, so an unknown one is refused before anything is sent; the history is the chain
 * of previous responses; the answer is kept as a response record instead of a session transcript.
 */
export async function openResponseTurn(deps: ResponseTurnDeps, request: ResponseTurnInput): Promise<ResponseTurn> {
  const { agent } = request;
  const { timeoutSeconds, historyLimit } = deps.config.agents.defaults;
  const responses = responseStore(deps.state);
  let history: SessionMessage[] = [];
  if (request.previousResponseId !== undefined) {
    const previous = await responses.get(request.previousResponseId);
    if (!previous || previous.agentId !== agent.id) {
      throw new HeraldError('HERALD_RESPONSE_NOT_FOUND', `No response "${request.previousResponseId}" of the agent "${agent.id}".`, { param: 'previous_response_id' });
    }
    history = await responseHistory(responses, previous, historyLimit);
  }
  const lastUser = request.input.findLastIndex((m) => m.role === 'user');
  if (lastUser < 0) throw new HeraldError('HERALD_INVALID_FIELD', 'input must hold a user message', { param: 'input' });

  const createdAt = Date.now();
  const meta = { agentId: agent.id, ...(request.metadata && { metadata: request.metadata }) };
  const incoming: SessionMessage[] = request.input.map((m) => ({ role: m.role === 'developer' ? 'system' : m.role, content: m.content, createdAt, meta }));
  const question = incoming[lastUser]!.content;
  // instructions apply to this response only (OpenAI's rule): a system message the next one does not inherit
  const system: SessionMessage[] = request.instructions ? [{ role: 'system', content: request.instructions, createdAt }] : [];
  const earlier = [...system, ...history, ...incoming.slice(0, lastUser), ...incoming.slice(lastUser + 1)];

  const id = `resp_${randomHex(12)}`;
  const outputItemId = `msg_${randomHex(12)}`;
  return {
    id,
    outputItemId,
    createdAt,
    async *run({ stream, signal }) {
      const limit = deadline(timeoutSeconds * 1000, signal);
      let record: ResponseRecord | undefined;
      try {
        const outcome = yield* agentTurn(deps, {
          agent,
          purpose: 'chat',
          sessionKey: `response:${id}`,
          history: earlier,
          prompt: question,
          question,
          retrieve: true,
          options: request.options,
          signal: limit.signal,
          stream,
          incoming: [],
          record: async (_transcript, outcome) => {
            record = {
              id,
              agentId: agent.id,
              createdAt,
              previousResponseId: request.previousResponseId ?? null,
              instructions: request.instructions ?? null,
              input: incoming,
              output: outcome.text,
              outputItemId,
              finishReason: outcome.finishReason,
              knowledge: outcome.knowledge,
              usage: outcome.usage,
              metadata: request.metadata ?? {},
              maxOutputTokens: request.options?.maxTokens ?? null,
              temperature: request.options?.temperature ?? null,
            };
            if (request.store) await responses.put(record);
          },
        });
        return { record: record!, outcome };
      } catch (error) {
        throw modelFailure(error, limit.timedOut, timeoutSeconds);
      } finally {
        limit.clear();
      }
    },
  };
}
