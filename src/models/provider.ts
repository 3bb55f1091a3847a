import type { thinkingLevels } from '../config/sections/mapping-schema.js';
import type { AbortWatch } from '../time/lazy-abort.js';
export type ThinkingLevel = (typeof thinkingLevels)[number];

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string;
  /** assistant: the client tools the model called (OpenAI's `tool_calls`) */
  tool_calls?: ModelToolCall[];
  /** tool: the call this message answers */
  tool_call_id?: string;
  /**
   * tool: the images and audio of the result, already described in `content`; a provider whose
   * model reads them passes them on as content parts (providers/media-messages.ts), others drop them
   */
  media?: MessageMedia[];
}

/** an image or audio clip a tool gave back, base64 as MCP carries it */
export interface MessageMedia {
  kind: 'image' | 'audio';
  mimeType: string;
  data: string;
}

/** One call of a client-side tool, in OpenAI's chat-completions shape. */
export interface ModelToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/**
 * A retrieved passage offered to the model: what it may quote, and the file a citation names.
 * The port models declares; knowledge's search answers such passages.
 */
export interface ModelPassage {
  filename: string;
  content: string;
  /** the search's score: higher is a better match */
  score: number;
}

/**
 * Per-call settings a caller passes through to the provider: the sampling knobs herald knows,
 * and `extra`, request fields sent to an OpenAI-compatible provider as they are, so a later API
 * (client tools, structured output) reaches the model without a new field at every layer.
 */
export interface ModelOptions {
  thinking?: ThinkingLevel;
  temperature?: number;
  maxTokens?: number;
  user?: string;
  /** provider request fields passed through unchanged (e.g. `tools`, `response_format`) */
  extra?: Record<string, unknown>;
}

/** the call's abort as a signal, whichever way it was given (a limit's signal is made now) */
export const signalOf = (call: { signal?: AbortSignal; limit?: AbortWatch }): AbortSignal | undefined => call.signal ?? call.limit?.signal;

/** whether the call was aborted, without making a limit's signal */
export const abortedOf = (call: { signal?: AbortSignal; limit?: AbortWatch }): boolean => call.signal?.aborted === true || call.limit?.aborted === true;

/** the `extra` fields only a provider with `clientTools` honours: client tools and structured output */
export const needsClientTools = (options: ModelOptions) =>
  options.extra !== undefined && ['tools', 'tool_choice', 'response_format'].some((k) => options.extra![k] !== undefined);

export interface ModelRequest extends ModelOptions {
  /** the model name inside its provider */
  model: string;
  /** the assembled prompt: instructions, knowledge, history, the new message */
  messages: ChatMessage[];
  /** why the model is called; the embedded model answers by it */
  purpose: 'heartbeat' | 'run' | 'chat';
  /** heartbeat: the pending system events */
  events?: string[];
  /** chat: the retrieved passages (already in `messages` for real models) */
  knowledge?: ModelPassage[];
  /** the latest user message, unwrapped */
  question?: string;
  signal?: AbortSignal;
  /**
   * the call's limit without a signal (a chat completion's): a provider that can listen to it
   * does (the OpenAI-compatible one); `signalOf` gives a signal of either
   */
  limit?: AbortWatch;
  /** streamed: called once the provider accepted the request (for an upstream: its answer's headers are in) */
  onOpen?: () => void;
}

export interface ModelUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

export interface ModelResponse {
  text: string;
  /**
   * the model declined to answer (OpenAI's `message.refusal`, e.g. under structured output):
   * its explanation, passed on as a refusal, never as answer text
   */
  refusal?: string;
  usage?: ModelUsage;
  finishReason?: string;
  /** client tools the model called; the turn ends and the client runs them */
  toolCalls?: ModelToolCall[];
}

export type ModelStreamEvent =
  | { type: 'delta'; text: string }
  /** a piece of the model's refusal (OpenAI's `delta.refusal`) */
  | { type: 'refusal'; text: string }
  | { type: 'usage'; usage: ModelUsage }
  /** why the model stopped (`stop`, `length`, ...), when it says */
  | { type: 'finish'; reason: string }
  /**
   * a piece of a tool call, as OpenAI streams them: the first piece of call `index` carries `id`
   * and `name`, later ones append to `arguments`
   */
  | { type: 'tool_call'; index: number; id?: string; name?: string; arguments?: string };

export interface ModelProvider {
  /**
   * true for a provider that takes OpenAI's client-tool and structured-output fields (`tools`,
   * `tool_choice`, `response_format`, tool messages) and answers tool calls: an OpenAI-compatible
   * one. Others (the embedded model) would ignore them and answer as if the client had not asked.
   */
  readonly clientTools?: boolean;
  complete(request: ModelRequest): Promise<ModelResponse>;
  /**
   * `complete`'s answer in the call itself, for a provider that answers in this process with no
   * I/O (the embedded model): a run's turn on such a chain makes no promise for it (in-process-turn.ts).
   */
  completeNow?(request: ModelRequest): ModelResponse;
  stream(request: ModelRequest): AsyncIterable<ModelStreamEvent>;
  /**
   * The same events as `stream`, handed to `onEvent` as they arrive; resolves at the end. For a
   * provider over the network this is the cheaper form (no promise per event): the agent turn
   * uses it when there is one.
   */
  streamEach?(request: ModelRequest, onEvent: (event: ModelStreamEvent) => void): Promise<void>;
}
