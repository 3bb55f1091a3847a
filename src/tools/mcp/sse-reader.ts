import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { McpSdk } from './mcp-sdk.js';

type ResumeOptions = { resumptionToken?: string; onresumptiontoken?: (id: string) => void; replayMessageId?: string | number };

/** the parts of the SDK's StreamableHTTPClientTransport (client/streamableHttp.js) its event stream reading uses */
interface SseInternals {
  _handleSseStream?: (stream: ReadableStream<Uint8Array> | null, options: ResumeOptions, isReconnectable: boolean) => void;
  _serverRetryMs?: number;
  _abortController?: AbortController;
  _scheduleReconnection(options: ResumeOptions, attemptCount?: number): void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
}

/**
 * The SDK's transport reads each answer's event stream through a TextDecoderStream and an
 * EventSourceParserStream piped one after the other: two TransformStreams made per request and a
 * pipe's promises per chunk, on every call. Here the same parser (eventsource-parser's, which
 * that stream wraps) is fed from one reader, and each event handled as the SDK does: its id is
 * the resumption token, its data a JSON-RPC message (a result's id replaced on a replay), and a
 * stream that ends or breaks before the answer, once it named a place to resume from, is
 * reconnected with that id. A transport without that method (another SDK version) is left as it is.
 */
export function readEventsDirectly(transport: Transport, sdk: McpSdk): void {
  const internals = transport as unknown as SseInternals;
  if (typeof internals._handleSseStream !== 'function') return;
  internals._handleSseStream = (stream, options, isReconnectable) => {
    if (stream) void read(internals, sdk, stream, options, isReconnectable);
  };
}

async function read(t: SseInternals, sdk: McpSdk, stream: ReadableStream<Uint8Array>, options: ResumeOptions, isReconnectable: boolean): Promise<void> {
  const { onresumptiontoken, replayMessageId } = options;
  let lastEventId: string | undefined;
  let resumable = isReconnectable;
  let answered = false;
  const parser = sdk.createParser({
    onEvent: (event) => {
      if (event.id) {
        lastEventId = event.id;
        resumable = true;
        onresumptiontoken?.(event.id);
      }
      // a priming event or a keep-alive carries no message
      if (!event.data || (event.event && event.event !== 'message')) return;
      try {
        const message = sdk.JSONRPCMessageSchema.parse(JSON.parse(event.data));
        if (sdk.isJSONRPCResultResponse(message)) {
          answered = true;
          if (replayMessageId !== undefined) message.id = replayMessageId;
        }
        t.onmessage?.(message);
      } catch (error) {
        t.onerror?.(error as Error);
      }
    },
    onRetry: (ms) => (t._serverRetryMs = ms),
  });
  const resume = () => {
    if (resumable && !answered && t._abortController && !t._abortController.signal.aborted) t._scheduleReconnection({ resumptionToken: lastEventId, onresumptiontoken, replayMessageId }, 0);
  };
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      parser.feed(decoder.decode(value, { stream: true }));
    }
    resume();
  } catch (error) {
    t.onerror?.(new Error(`SSE stream disconnected: ${String(error)}`));
    try {
      resume();
    } catch (failed) {
      t.onerror?.(new Error(`Failed to reconnect: ${failed instanceof Error ? failed.message : String(failed)}`));
    }
  }
}
