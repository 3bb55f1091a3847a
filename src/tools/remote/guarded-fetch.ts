import { withTraceparent } from '../traced-request.js';

/** the most one answer of a request's remote server may take: the SDK reads a message whole */
export const MAX_ANSWER_BYTES = 10 * 1024 * 1024;
/** statuses a Response is never made with a body for */
const NULL_BODY = new Set([101, 204, 205, 304]);

/**
 * fetch for a request's remote MCP server: every URL it is asked for must pass `allowed` (the
 * first and any the server redirects to, which the SDK follows itself), fetch never follows a
 * redirect on its own, and an answer to a POST (one request's JSON or short event stream) fails
 * past MAX_ANSWER_BYTES; the long-lived GET stream of notifications is left as it is.
 */
export function guardedFetch(allowed: (url: URL) => boolean) {
  return async (input: string | URL, init?: RequestInit): Promise<Response> => {
    const url = new URL(input);
    if (!allowed(url)) throw new Error('the server sent herald to a URL outside tools.remoteAllowlist');
    const response = await fetch(url, { ...withTraceparent(init), redirect: 'manual' });
    if (init?.method !== 'POST' || !response.body || NULL_BODY.has(response.status)) return response;
    let seen = 0;
    const cap = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        seen += chunk.byteLength;
        if (seen > MAX_ANSWER_BYTES) controller.error(new Error(`the server's answer is larger than ${MAX_ANSWER_BYTES / 1024 / 1024} MB`));
        else controller.enqueue(chunk);
      },
    });
    return new Response(response.body.pipeThrough(cap), { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}
