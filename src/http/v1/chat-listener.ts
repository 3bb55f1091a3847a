import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { HttpMetrics } from '../../metrics/http-metrics.js';
import { bearerOf } from '../bearer-token.js';
import { refusalOnNode } from '../error-handler.js';
import { absoluteUrl } from '../request-url.js';
import { nodeClientAddress, openNodeRequest, readNodeBody } from '../server/node-request.js';
import { requestAnswered } from '../request-context.js';
import type { TrustedProxies } from '../trusted-proxies.js';
import { answerChatCompletion, cancelWhenResponseCloses, type ChatRoutesDeps } from './chat-completions.js';
import type { ChatExchange } from './chat-exchange.js';
import type { PlatformGate } from './platform-auth.js';
import { streamSse } from './sse-response.js';

export interface ChatListenerDeps extends ChatRoutesDeps {
  /** the same gate as the rest of /v1: one key's rate limit and one address's failures count on both */
  gate: PlatformGate;
  proxies: TrustedProxies;
  metrics?: HttpMetrics;
}

const PATH = '/v1/chat/completions';

/**
 * Answers `POST /v1/chat/completions` from Node's request and response, and hands every other
 * request to `rest`. A chat completion is the platform API's hot path, and hono's request,
 * context, middleware chain and Response are work it does not need, on its CPU and before its
 * first token; here the same route (`answerChatCompletion`) runs with what the app's middleware does
 * around it: the request id, the client address, the platform gate (API key and rate limit), the
 * error's answer in OpenAI's shape, the access log and metrics. A target that is not the path
 * itself (a trailing slash, an encoding) or a request without a Host goes to `rest`, which decides
 * it as before.
 */
export function withChatCompletions(deps: ChatListenerDeps, rest: RequestListener): RequestListener {
  return function chatListener(incoming, outgoing) {
    const target = incoming.url ?? '';
    if (incoming.method !== 'POST' || !target.startsWith(PATH) || (target.length > PATH.length && target.charCodeAt(PATH.length) !== 63)) return rest(incoming, outgoing);
    const url = absoluteUrl(incoming, target);
    if (url === undefined) return rest(incoming, outgoing);
    answer(deps, incoming, outgoing, url).catch((error: unknown) => {
      deps.logger.error({ err: error }, 'chat completion failed outside its route');
      outgoing.destroy();
    });
  };
}

async function answer(deps: ChatListenerDeps, incoming: IncomingMessage, outgoing: ServerResponse, url: string): Promise<void> {
  const { started, headers, requestId } = openNodeRequest(incoming, outgoing);
  const clientAddress = nodeClientAddress(deps.proxies, incoming, headers);
  let x: ChatExchange | undefined;
  const answered = (status: number) =>
    requestAnswered(deps.logger, deps.metrics, { id: requestId, method: 'POST', path: PATH, status, started, mappingId: undefined, bodyBytes: x?.bodyBytes, declaredLength: headers['content-length'] });
  let json: string;
  let status = 200;
  try {
    const admitted = await deps.gate.admit({ clientAddress, requestId }, bearerOf(headers.authorization));
    for (const name in admitted.headers) outgoing.setHeader(name, admitted.headers[name]!);
    x = {
      clientAddress,
      requestId,
      principal: admitted.principal,
      readBody: (limits) => readNodeBody(incoming, headers, limits),
      origin: () => new URL(url).origin,
      setHeader: (name, value) => outgoing.setHeader(name, value),
      whenClientGone: (cancel) => cancelWhenResponseCloses(outgoing, cancel),
    };
    const reply = await answerChatCompletion(x, deps);
    if ('stream' in reply) {
      streamSse(outgoing, reply.stream, reply.options);
      // on the check phase, after undici's write of the model request the stream dispatched in this turn
      setImmediate(answered, 200);
      return;
    }
    json = JSON.stringify(reply.json);
  } catch (thrown) {
    ({ status, body: json } = refusalOnNode(outgoing, thrown, deps.logger, requestId, PATH));
  }
  answered(status);
  outgoing.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(json) });
  outgoing.end(json);
}
