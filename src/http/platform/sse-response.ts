import { errorCatalog, HeraldError } from '../../errors.js';
import { openaiType } from '../error-handler.js';

export type SendEvent = (data: unknown) => void;

/** the OpenAI error object of any failure (unknown errors say no more than "internal error") */
export function openaiError(error: unknown) {
  const e = error instanceof HeraldError ? error : new HeraldError('HERALD_INTERNAL');
  return { message: e.message, type: openaiType(e.status), param: e.param ?? null, code: e.openaiCode ?? errorCatalog[e.code].openai };
}

/**
 * A server-sent-events response: `data: <json>` frames, `: ping` comments while `produce`
 * waits (proxies close silent connections), `data: [DONE]` at the end. A failure after the
 * headers went out becomes one `data: {"error":...}` frame. The signal aborts when the
 * client goes away.
 */
export function sseResponse(
  produce: (send: SendEvent, signal: AbortSignal) => Promise<void>,
  options: {
    pingMs: number;
    headers?: Record<string, string>;
    onError?: (error: unknown) => void;
    /**
     * the Responses API's framing: each frame named by its data's `type` (`event: <type>`), no
     * `[DONE]`, a failure as an `error` event built by this function
     */
    typed?: { errorEvent: (error: unknown) => { type: string } };
  },
): Response {
  const encoder = new TextEncoder();
  const abort = new AbortController();
  let closed = false;
  let ping: NodeJS.Timeout | undefined;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      // the frames of one event-loop turn (an upstream read often carries several) go out as one
      // chunk: one encode and one socket write instead of one per frame, sent as soon as the turn ends
      let pending = '';
      const flush = () => {
        if (pending && !closed) controller.enqueue(encoder.encode(pending));
        pending = '';
      };
      const write = (text: string) => {
        if (closed) return;
        if (!pending) setImmediate(flush);
        pending += text;
      };
      ping = setInterval(() => write(': ping\n\n'), options.pingMs);
      const typed = options.typed;
      const send: SendEvent = typed
        ? (data) => write(`event: ${(data as { type: string }).type}\ndata: ${JSON.stringify(data)}\n\n`)
        : (data) => write(`data: ${JSON.stringify(data)}\n\n`);
      produce(send, abort.signal)
        .then(
          () => {
            if (!typed) write('data: [DONE]\n\n');
          },
          (error) => {
            options.onError?.(error);
            send(typed ? typed.errorEvent(error) : { error: openaiError(error) });
          },
        )
        .finally(() => {
          clearInterval(ping);
          flush();
          if (!closed) {
            closed = true;
            controller.close();
          }
        });
    },
    cancel() {
      closed = true;
      clearInterval(ping);
      abort.abort(new Error('client closed the stream'));
    },
  });
  return new Response(body, {
    status: 200,
    headers: {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      // nginx would otherwise buffer the stream and deliver it all at the end
      'x-accel-buffering': 'no',
      ...options.headers,
    },
  });
}
