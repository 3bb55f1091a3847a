import { completeInProcess, completeWithFallbacks } from '../models/complete-with-fallbacks.js';
import type { ModelRegistry } from '../models/model-registry.js';
import { abortedOf, signalOf, type ModelRequest, type ModelResponse, type ModelStreamEvent, type ModelToolCall } from '../models/provider.js';
import { randomHex } from '../utils/random-hex.js';
import { ModelCallError } from './model-call-error.js';
import type { assembleTurn } from './turn-prompt.js';
import type { TurnFields } from './turn-inputs.js';
import { recordCutShort, type TurnAccounts } from './turn-usage.js';
import type { ModelFailure, ModelAnswer } from './turn-outcome.js';

/**
 * a piece of the answer as it streams: text, a piece of the model's refusal, or a piece of a
 * client tool call (the first of call `index` has its id and name)
 */
export type TurnDelta = { type: 'delta'; text: string } | { type: 'refusal'; text: string } | ToolCallPiece;

export type ToolCallPiece = Extract<ModelStreamEvent, { type: 'tool_call' }>;

/**
 * on a failure, try the chain of agents.defaults.model (override, fallbacks, primary) in order:
 * a hook run's and a heartbeat's; a chat's or a response's first model's failure is its own (a 502)
 */
const triesFallbacks = (input: TurnFields) => input.purpose === 'run' || input.purpose === 'heartbeat';

/**
 * Asks the model once. Streamed, the answer's deltas go to `onDelta` as they come, and so do the
 * pieces of the client's tool calls (numbered among the client's own); the pieces of calls of
 * server-side tools are held back: herald answers those itself.
 */
export async function askModel(
  deps: TurnAccounts & { models: ModelRegistry },
  input: TurnFields,
  provider: ReturnType<typeof assembleTurn>['provider'],
  request: ModelRequest,
  refs: string[],
  ref: string,
  isServerCall: (call: ModelToolCall) => boolean,
  onDelta?: (delta: TurnDelta) => void,
  /** the call's budget reservation, settled here when the call fails */
  reservation?: number,
): Promise<ModelAnswer> {
  const answer: ModelAnswer = { text: '', refusal: '', finishReason: 'stop', modelRef: ref, failures: [], toolCalls: [] };
  try {
    if (input.stream) {
      // made with the first tool call's piece: most streams have none
      let clientIndex: Map<number, number | null> | undefined;
      const take = (event: ModelStreamEvent) => {
        if (event.type === 'usage') answer.usage = event.usage;
        else if (event.type === 'finish') answer.finishReason = event.reason;
        else if (event.type === 'tool_call') {
          const piece = addToolCallPiece(answer.toolCalls, event);
          clientIndex ??= new Map();
          if (!clientIndex.has(event.index)) {
            const call = answer.toolCalls[event.index]!;
            clientIndex.set(event.index, call.function.name && isServerCall(call) ? null : [...clientIndex.values()].filter((i) => i !== null).length);
          }
          const index = clientIndex.get(event.index);
          if (index !== null && index !== undefined) onDelta?.(index === piece.index ? piece : { ...piece, index });
        } else if (event.type === 'refusal' && event.text) {
          answer.refusal += event.text;
          onDelta?.(event);
        } else if (event.type === 'delta' && event.text) {
          answer.text += event.text;
          onDelta?.(event);
        }
      };
      if (provider.streamEach) await provider.streamEach(request, take);
      else for await (const event of provider.stream(request)) take(event);
      answer.toolCalls = answer.toolCalls.filter(Boolean);
    } else {
      // the chain, tried in order (a stream, once begun, cannot change model: it has none)
      // each model of the chain is asked with its own model name and signal, written over these
      const response: ModelResponse & { ref?: string; failures?: ModelFailure[] } = triesFallbacks(input)
        ? await completeWithFallbacks(refs, deps.models, request, { signal: signalOf(request), deadline: input.deadlineAt })
        : await provider.complete(request);
      takeResponse(answer, response);
    }
  } catch (error) {
    // aborted (the client went away, the time limit) or failed after the provider read the prompt:
    // what it read and what it generated are spent, estimated, as for a call that ended
    if (answer.text || answer.refusal || answer.toolCalls.length || answer.usage || abortedOf(input)) await recordCutShort(deps, input, answer, request, reservation);
    else if (reservation !== undefined) deps.usage?.settle(reservation, undefined);
    throw new ModelCallError(error);
  }
  return answer;
}

/**
 * askModel for a run or heartbeat whose chain answers in this process (completeInProcess): the
 * answer in the call itself. A failure gives the call's reservation back (nothing was generated)
 * and is thrown as askModel throws it.
 */
export function askModelInProcess(deps: TurnAccounts & { models: ModelRegistry }, request: ModelRequest, refs: string[], ref: string, reservation: number | undefined): ModelAnswer {
  const answer: ModelAnswer = { text: '', refusal: '', finishReason: 'stop', modelRef: ref, failures: [], toolCalls: [] };
  try {
    takeResponse(answer, completeInProcess(refs, deps.models, request));
  } catch (error) {
    if (reservation !== undefined) deps.usage?.settle(reservation, undefined);
    throw new ModelCallError(error);
  }
  return answer;
}

/** a whole answer's fields, as the model (or the chain's model that answered) gave them */
function takeResponse(answer: ModelAnswer, response: ModelResponse & { ref?: string; failures?: ModelFailure[] }): void {
  answer.text = response.text;
  answer.refusal = response.refusal ?? '';
  answer.usage = response.usage;
  answer.finishReason = response.finishReason ?? 'stop';
  if (response.ref) answer.modelRef = response.ref;
  if (response.failures) answer.failures = response.failures;
  answer.toolCalls = response.toolCalls ?? [];
}

/**
 * Adds a streamed piece to the calls being assembled (call `index`: the first piece has its id
 * and name, later ones more arguments) and returns it as the turn streams it; a server that
 * leaves the id out gets one, since the client answers the call by it.
 */
function addToolCallPiece(calls: ModelToolCall[], piece: ToolCallPiece): ToolCallPiece {
  let call = calls[piece.index];
  if (!call) {
    call = calls[piece.index] = { id: piece.id ?? `call_${randomHex(12)}`, type: 'function', function: { name: '', arguments: '' } };
    piece = { ...piece, id: call.id };
  }
  if (piece.name) call.function.name = piece.name;
  if (piece.arguments) call.function.arguments += piece.arguments;
  return piece;
}
