import { setMaxListeners } from 'node:events';
import path from 'node:path';
import { withTraceparent } from '../traced-request.js';
import type { Readable } from 'node:stream';
import type { Logger } from 'pino';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { isStdioServer, type McpServerConfig } from '../../config/sections/tools-schema.js';
import type { McpSdk } from './mcp-sdk.js';
import { MAX_MESSAGE_BYTES, oversizedError } from './oversized.js';
import type { SecretMask } from './secret-mask.js';
import { StdioGroupTransport } from './stdio-group-transport.js';
import { messageCounter } from './message-counter.js';
import { nodeFetch } from './node-fetch.js';
import { readEventsDirectly } from './sse-reader.js';
import type { ServerSignIn } from './oauth/server-sign-in.js';

export { MAX_MESSAGE_BYTES, OVERSIZED } from './oversized.js';
/** a stderr line longer than this is logged in pieces (a server printing without newlines is not buffered whole) */
const MAX_STDERR_LINE = 4096;

export interface TransportContext {
  server: string;
  /** the config file's folder: a stdio server's cwd is relative to it, and it is the cwd when unset */
  baseDir: string;
  logger: Logger;
  /** an HTTP server's OAuth sign-in: its fetch adds the token, renews it, and says when a person is needed */
  signIn?: ServerSignIn;
  /** the server's configured secrets masked in what it writes (its stderr) */
  mask: SecretMask;
}

/** the SDK's transport for one configured server: a child process over stdio, or Streamable HTTP */
export function mcpTransport(sdk: McpSdk, config: McpServerConfig, context: TransportContext): Transport {
  const { StreamableHTTPClientTransport } = sdk;
  if (isStdioServer(config)) {
    // the SDK's minimal inherited environment (HOME, LOGNAME, PATH, SHELL, TERM, USER) under `env`; the server in a process group of its own
    const transport = new StdioGroupTransport(sdk, {
      command: config.command,
      args: config.args,
      env: config.env,
      cwd: path.resolve(context.baseDir, config.cwd ?? '.'),
      maxBufferSize: MAX_MESSAGE_BYTES,
    });
    logStderr(transport.stderr, context);
    return transport;
  }
  const send = tracedFetch(nodeFetch(MAX_MESSAGE_BYTES, boundedFetch(MAX_MESSAGE_BYTES)));
  const transport = new StreamableHTTPClientTransport(new URL(config.url), {
    requestInit: { headers: config.headers },
    fetch: context.signIn ? context.signIn.fetch(send) : send,
  });
  readEventsDirectly(transport, sdk);
  return transport;
}

/** the server's stderr, line by line, at debug, its configured secrets masked; always read, so a chatty server never blocks on a full pipe */
function logStderr(stream: Readable, { server, logger, mask }: TransportContext): void {
  const log = logger.child({ component: 'tools', server });
  let partial = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    if (!log.isLevelEnabled('debug')) return;
    const lines = (partial + chunk).split('\n');
    partial = lines.pop()!;
    while (partial.length > MAX_STDERR_LINE) {
      lines.push(partial.slice(0, MAX_STDERR_LINE));
      partial = partial.slice(MAX_STDERR_LINE);
    }
    for (const line of lines) if (line.trim()) log.debug({ stderr: mask(line.slice(0, MAX_STDERR_LINE).trimEnd()) }, 'tool server stderr');
  });
  stream.on('error', () => undefined);
}

/** each request with the traceparent of the span it is made in (withTraceparent); the transport's signal without a listener limit (unlimitedListeners) */
const tracedFetch =
  (next: (url: string | URL, init?: RequestInit) => Promise<Response>) =>
  (url: string | URL, init?: RequestInit): Promise<Response> => {
    if (init?.signal) unlimitedListeners(init.signal);
    return next(url, withTraceparent(init));
  };

/**
 * Global fetch, for what nodeFetch leaves to it, with the same limit: an answer to a POST fails
 * as soon as one message passes `maxBytes` (messageCounter); the long-lived GET stream of server
 * notifications is left as it is (the SDK reconnects it by itself, and a wrapped one hides why it closed).
 */
function boundedFetch(maxBytes: number) {
  return async (url: string | URL, init?: RequestInit): Promise<Response> => {
    const response = await fetch(url, init);
    if (!response.body || init?.method !== 'POST') return response;
    const events = response.headers.get('content-type')?.includes('text/event-stream') === true;
    const count = messageCounter(events, Number(response.headers.get('content-length') ?? NaN), maxBytes);
    if (!count) return response;
    return new Response(capped(response.body, count, maxBytes), { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

/**
 * The body read through a count (messageCounter): past `maxBytes` (of one event, for an event
 * stream) it fails. A pull source over the body's reader rather than a TransformStream piped
 * through: one stream and one read per chunk, not a pipe's promises per chunk.
 */
function capped(body: ReadableStream<Uint8Array>, count: (chunk: Uint8Array) => boolean, maxBytes: number): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const { done, value: chunk } = await reader.read();
        if (done) return controller.close();
        if (count(chunk)) return controller.enqueue(chunk);
        const error = oversizedError(maxBytes);
        controller.error(error);
        void reader.cancel(error).catch(() => undefined);
      },
      cancel: (reason) => reader.cancel(reason),
    },
    { highWaterMark: 0 },
  );
}

const unlimited = new WeakSet<AbortSignal>();

/**
 * The SDK's transport gives every request the same signal (its connection's). nodeFetch holds an
 * abort listener on it per request in flight (more than EventTarget's ten under load); Node's fetch
 * adds one per request that it drops only once that request is collected:
 * under load more than 1,500 are on it between collections, and past 1,500 each new one made
 * Node build and print a MaxListenersExceededWarning (a stack trace and a stderr write per call,
 * a tenth of herald's CPU in a /mcp profile). The listeners are bounded by the collector, not
 * leaked, so the warning is only noise: it is turned off for that one signal. With 0, on purpose:
 * Node 20's getMaxListeners throws on a limit of 0 (an ERR_INVALID_ARG_TYPE, which fetch builds
 * and swallows at every request: the NodeError in a /mcp profile, about 1%), and that throw skips
 * the rest of fetch's check. With any other limit fetch counts the signal's listeners
 * (getEventListeners, an array of every one of them, per request) and sets the limit back to
 * 1,500, so the warnings come back (measured: Infinity did both).
 */
function unlimitedListeners(signal: AbortSignal): void {
  if (unlimited.has(signal)) return;
  unlimited.add(signal);
  setMaxListeners(0, signal);
}
