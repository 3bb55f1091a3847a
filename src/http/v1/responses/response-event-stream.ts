import type { McpItemEvent } from '../../../runtime/turns/responses/response-ledger.js';
import type { ResponseMcpItem } from '../../../runtime/turns/responses/response-record.js';
import type { ResponseTurn } from '../../../runtime/turns/responses/response-turn.js';
import { fileSearchCallItem, functionCallItem, outputMessage, outputTextPart, refusalPart, responseObject, type ResponseHead } from './response-object.js';
import { openaiError, type SseOutput } from '../../exchange/sse-response.js';

type Part = { item_id: string; output_index: number; content_index: number };

/**
 * A streamed Responses API answer as OpenAI's typed events
 * (https://platform.openai.com/docs/api-reference/responses-streaming): the response created,
 * each output item added as the model starts it (the message on its first text or refusal, a
 * function call on its first piece, an MCP item as herald lists a server or makes a call), their
 * deltas, then every part and item done and the response completed. Every event, the error event
 * included, carries the stream's next `sequence_number`.
 */
export function responseEventStream(turn: ResponseTurn, head: ResponseHead) {
  let sequence_number = 0;
  const event = (type: string, fields: Record<string, unknown>) => ({ type, sequence_number: sequence_number++, ...fields });

  const produce = async ({ send, flush, signal }: SseOutput): Promise<void> => {
    const emit = (type: string, fields: Record<string, unknown>) => send(event(type, fields));
    emit('response.created', { response: responseObject(head) });
    emit('response.in_progress', { response: responseObject(head) });
    // items are added as the model starts them: the message on its first text or refusal, a function call on its first piece
    let outputs = 0;
    // the file search runs before the model is asked: its item is the first, done before any other starts
    // (https://platform.openai.com/docs/api-reference/responses-streaming/response/file_search_call)
    const search = turn.fileSearch;
    let searchDone = !search;
    if (search) {
      const at = { output_index: outputs++, item_id: search.id };
      emit('response.output_item.added', { output_index: at.output_index, item: fileSearchCallItem(search, undefined, 'in_progress') });
      emit('response.file_search_call.in_progress', at);
      emit('response.file_search_call.searching', at);
    }
    const finishSearch = () => {
      if (searchDone) return;
      searchDone = true;
      emit('response.file_search_call.completed', { output_index: 0, item_id: search!.id });
      emit('response.output_item.done', { output_index: 0, item: fileSearchCallItem(search!, search!.found ?? []) });
    };
    let message: { item_id: string; output_index: number; parts: number } | undefined;
    let textAt: Part | undefined;
    let refusalAt: Part | undefined;
    const openMessage = () => {
      if (message) return message;
      finishSearch();
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
    // OpenAI's MCP events (https://platform.openai.com/docs/api-reference/responses-streaming/response/mcp_call):
    // a server's list in progress then completed or failed, a call's arguments, in progress, then completed or failed
    const mcpIndex = new Map<string, number>();
    const mcpItem = ({ phase, item }: McpItemEvent) => {
      let output_index = mcpIndex.get(item.id);
      if (output_index === undefined) {
        // a call comes after the model's answer, so after the file search; a server's tools are listed meanwhile
        if (item.type !== 'mcp_list_tools') finishSearch();
        mcpIndex.set(item.id, (output_index = outputs++));
        const at = { output_index, item_id: item.id };
        emit('response.output_item.added', { output_index, item: addedItem(item) });
        if (item.type === 'mcp_list_tools') emit('response.mcp_list_tools.in_progress', at);
        if (item.type === 'mcp_call') {
          emit('response.mcp_call_arguments.delta', { ...at, delta: item.arguments });
          emit('response.mcp_call_arguments.done', { ...at, arguments: item.arguments });
          emit('response.mcp_call.in_progress', at);
        }
      }
      if (phase === 'added') return;
      const at = { output_index, item_id: item.id };
      if (item.type === 'mcp_list_tools') emit(item.error ? 'response.mcp_list_tools.failed' : 'response.mcp_list_tools.completed', at);
      if (item.type === 'mcp_call') emit(item.status === 'failed' ? 'response.mcp_call.failed' : 'response.mcp_call.completed', at);
      emit('response.output_item.done', { output_index, item });
    };
    const callIndex = new Map<number, number>();
    const run = turn.run({ stream: true, signal });
    let step = await run.next();
    for (; !step.done; step = await run.next()) {
      const piece = step.value;
      if (piece.type === 'mcp_item') {
        mcpItem(piece);
        continue;
      }
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
        finishSearch();
        callIndex.set(piece.index, (output_index = outputs++));
        const call = { id: item_id, call_id: piece.id ?? '', name: piece.name ?? '', arguments: '' };
        emit('response.output_item.added', { output_index, item: functionCallItem(call, 'in_progress') });
      }
      if (piece.arguments) emit('response.function_call_arguments.delta', { item_id, output_index, delta: piece.arguments });
    }
    const { record } = step.value;
    finishSearch();
    // a response of function calls or approval requests alone has no message
    if (message || (!record.toolCalls?.length && !record.paused)) {
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
  };

  /** an MCP item as it is added: a call's arguments come in their own events, its output when it is done */
  const addedItem = (item: ResponseMcpItem): ResponseMcpItem => (item.type === 'mcp_call' ? { ...item, arguments: '', output: null, error: null, status: 'in_progress' } : item);

  /** OpenAI's stream error event has the error's fields at the top; the official client throws on `error` */
  const errorEvent = (error: unknown) => {
    const e = openaiError(error);
    return event('error', { code: e.code, message: e.message, param: e.param, error: e });
  };

  return { produce, errorEvent };
}
