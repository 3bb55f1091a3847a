import type { KnowledgePassage } from '../knowledge/knowledge-passage.js';
import type { SessionMessage } from '../store/port.js';
import { answeredTurn, PASSAGES_PER_TURN, takeAgentTurn, turnRequest, type AgentTurnDeps, type TurnResult } from './agent-turn.js';
import { askModelInProcess } from './model-answer.js';
import type { HookRunTurnInput, TurnFields } from './turn-inputs.js';
import { estimateUsage, reserveCall } from './turn-usage.js';

/**
 * A hook run's turn when every model of its chain answers in this process (the embedded one:
 * ModelRegistry.answersInProcess): the turn takeAgentTurn takes, computed in this call, with
 * no promise for its model call and none around it, unless a step of it waits (knowledge searched over the network, a budget's
 * reservation on PostgreSQL). Such a model takes no tools, so a fresh turn is one model call; a
 * turn going on from a checkpoint, or still to read its history, is takeAgentTurn's.
 * A failure is a value, as takeAgentTurn's is.
 */
export function takeRunTurnInProcess(deps: AgentTurnDeps, asked: HookRunTurnInput): TurnResult | Promise<TurnResult> {
  // one going on from a checkpoint, or without its history, is takeAgentTurn's
  const { history } = asked;
  if (asked.resume || history === undefined) return takeAgentTurn(deps, asked);
  const input: TurnFields = asked;
  try {
    const found = deps.knowledge?.search(input.agent.id, asked.question, PASSAGES_PER_TURN) ?? [];
    return Array.isArray(found) ? withKnowledge(deps, input, history, found) : found.then((knowledge) => withKnowledge(deps, input, history, knowledge), failed);
  } catch (error) {
    return failed(error);
  }
}

function withKnowledge(deps: AgentTurnDeps, input: TurnFields, history: SessionMessage[], knowledge: KnowledgePassage[]): TurnResult | Promise<TurnResult> {
  try {
    const { resolved, request, refs } = turnRequest(deps, input, history, knowledge);
    const reserving = input.reservation ?? reserveCall(deps, input, request, resolved.ref);
    const asked = (reservation: number | undefined): TurnResult | Promise<TurnResult> => {
      const answer = askModelInProcess(deps, request, refs, resolved.ref, reservation);
      const answered = (lastUsage: NonNullable<typeof answer.usage>) =>
        answeredTurn(deps, input, { request, answer, lastUsage, spent: undefined, knowledge, callsMade: 0, exchangeFrom: request.messages.length, reservation });
      return answer.usage ? answered(answer.usage) : estimateUsage(request, answer).then(answered).catch(failed);
    };
    if (!(reserving instanceof Promise)) return asked(reserving);
    return reserving.then(asked).catch(failed);
  } catch (error) {
    return failed(error);
  }
}

const failed = (error: unknown): TurnResult => ({ kind: 'failed', error });
