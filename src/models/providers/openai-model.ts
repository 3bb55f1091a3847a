import { OpenAICompatibleClient } from './openai-compatible-client.js';
import type { ModelProvider, ModelRequest, ModelResponse, ModelStreamEvent, ModelToolCall } from '../provider.js';
import { wireMessages, type ModelInput } from './media-messages.js';

export interface OpenAIProviderConfig {
  baseUrl: string;
  apiKey?: string;
  /** what a model of this provider reads besides text (models.input), read at each request: a reload changes it */
  input?: (model: string) => ModelInput;
}

const TEXT_ONLY: ModelInput = ['text'];
/** the usage chunk at a stream's end: never changed, so one object serves every request */
const STREAM_OPTIONS = Object.freeze({ include_usage: true });

/** Any OpenAI-compatible server (OpenAI, Ollama, vLLM, llama.cpp) over real HTTP. */
export class OpenAIModel implements ModelProvider {
  readonly clientTools = true;
  // retries belong to herald's run queue, not hidden inside the client; so does the time limit
  // (agents.defaults.timeoutSeconds / timeoutSeconds abort through the signal): the client has none
  private readonly client: OpenAICompatibleClient;
  private readonly input: (model: string) => ModelInput;

  constructor(config: OpenAIProviderConfig) {
    this.client = new OpenAICompatibleClient(config);
    this.input = config.input ?? (() => TEXT_ONLY);
  }

  /**
   * The request body, written field by field onto a copy of `extra` (not spread: a body's shape
   * then differs only by the fields it has); `extra` first, so herald's own fields win over a
   * pass-through of the same name, and the stream settings last.
   */
  private params(request: ModelRequest, streamed: boolean) {
    const body: Record<string, unknown> = request.extra ? Object.assign({}, request.extra) : {};
    body.model = request.model;
    // herald's ChatMessage is OpenAI's message shape (tool roles included), checked by the provider; tool results' media as the model reads them
    body.messages = wireMessages(request.messages, this.input(request.model));
    if (request.temperature !== undefined) body.temperature = request.temperature;
    if (request.maxTokens !== undefined) body.max_tokens = request.maxTokens;
    if (request.user !== undefined) body.user = request.user;
    // herald's thinking levels are OpenAI's reasoning efforts; "off" sends none
    if (request.thinking && request.thinking !== 'off') body.reasoning_effort = request.thinking;
    body.stream = streamed;
    if (streamed) body.stream_options = STREAM_OPTIONS;
    return body;
  }

  async complete(request: ModelRequest): Promise<ModelResponse> {
    const completion = (await this.client.post('/chat/completions', this.params(request, false), request.limit ?? request.signal)) as ChatCompletion;
    const choice = completion.choices[0];
    // built field by field: the same shape for every answer without a refusal or tool calls
    const response: ModelResponse = { text: choice?.message?.content ?? '', finishReason: choice?.finish_reason ?? 'stop', usage: undefined };
    if (choice?.message?.refusal) response.refusal = choice.message.refusal;
    if (choice?.message?.tool_calls?.length) response.toolCalls = toolCallsOf(choice.message.tool_calls);
    const usage = completion.usage;
    if (usage) response.usage = { prompt_tokens: usage.prompt_tokens, completion_tokens: usage.completion_tokens, total_tokens: usage.total_tokens };
    return response;
  }

  async *stream(request: ModelRequest): AsyncIterable<ModelStreamEvent> {
    const stream = this.client.stream('/chat/completions', this.params(request, true), request.limit ?? request.signal);
    const events: ModelStreamEvent[] = [];
    for await (const chunk of stream) {
      eventsOf(chunk as ChatCompletionChunk, (event) => events.push(event));
      for (const event of events.splice(0)) yield event;
    }
  }

  streamEach(request: ModelRequest, onEvent: (event: ModelStreamEvent) => void): Promise<void> {
    return this.client.streamEach('/chat/completions', this.params(request, true), (chunk) => eventsOf(chunk as ChatCompletionChunk, onEvent), request.limit ?? request.signal, request.onOpen);
  }

}

/** what one streamed chunk says, as herald's stream events, in order */
function eventsOf(chunk: ChatCompletionChunk, emit: (event: ModelStreamEvent) => void): void {
  const choice = chunk.choices[0];
  const delta = choice?.delta;
  if (delta?.content) emit({ type: 'delta', text: delta.content });
  if (delta?.refusal) emit({ type: 'refusal', text: delta.refusal });
  // no empty list made for the chunks without tool calls (nearly every one)
  if (delta?.tool_calls) {
    for (const call of delta.tool_calls) {
      emit({
        type: 'tool_call',
        index: call.index,
        ...(call.id && { id: call.id }),
        ...(call.function?.name && { name: call.function.name }),
        ...(call.function?.arguments && { arguments: call.function.arguments }),
      });
    }
  }
  if (choice?.finish_reason) emit({ type: 'finish', reason: choice.finish_reason });
  if (chunk.usage) {
    emit({
      type: 'usage',
      usage: { prompt_tokens: chunk.usage.prompt_tokens, completion_tokens: chunk.usage.completion_tokens, total_tokens: chunk.usage.total_tokens },
    });
  }
}

/** Function calls only: custom tool calls have no place in herald's turn yet. */
function toolCallsOf(calls: WireToolCall[]): ModelToolCall[] {
  return calls.flatMap((call) =>
    call.type === 'function' ? [{ id: call.id, type: 'function' as const, function: { name: call.function.name, arguments: call.function.arguments } }] : [],
  );
}

// what herald reads of OpenAI's chat-completion shapes (https://platform.openai.com/docs/api-reference/chat/object)
interface WireUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}
type WireToolCall = { id: string; type: 'function'; function: { name: string; arguments: string } } | { id: string; type: 'custom' };
interface ChatCompletion {
  // `refusal`: https://platform.openai.com/docs/api-reference/chat/object#chat/object-choices-message-refusal
  choices: { message?: { content?: string | null; refusal?: string | null; tool_calls?: WireToolCall[] }; finish_reason?: string | null }[];
  usage?: WireUsage | null;
}
interface ChatCompletionChunk {
  choices: {
    // `refusal`: https://platform.openai.com/docs/api-reference/chat-streaming/streaming#chat-streaming/streaming-choices-delta-refusal
    delta?: { content?: string | null; refusal?: string | null; tool_calls?: { index: number; id?: string; function?: { name?: string; arguments?: string } }[] };
    finish_reason?: string | null;
  }[];
  usage?: WireUsage | null;
}
