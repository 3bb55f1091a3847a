import type { Logger } from 'pino';
import type { HttpMetrics } from '../../metrics/http-metrics.js';
import { answerableError, errorBody } from '../error-handler.js';
import { requestAnswered } from '../request/request-context.js';
import type { Answer, Exchange, WholeAnswer } from './exchange.js';

/**
 * A hot surface (the webhooks, chat completions) as its pipeline runs it. `admit` decides who may
 * call (an API key, a rate limit) or opens what the surface keeps of the call (a receipt), and
 * returns what `answer` and `record` are handed; a refusal is thrown, as a HeraldError.
 */
export interface ExchangeSurface<Admitted> {
  /** a value, or a promise only when it must wait (a key's lookup): the webhook path awaits nothing here */
  admit(x: Exchange): Admitted | Promise<Admitted>;
  answer(x: Exchange, admitted: Admitted): Promise<Answer>;
  /** what the surface keeps of an answered call (the webhook receipt); `admitted` is undefined when admission refused it */
  record?(x: Exchange, admitted: Admitted | undefined, status: number, error: unknown): void;
}

export interface PipelineDeps {
  logger: Logger;
  metrics?: HttpMetrics;
}

/**
 * The one pipeline of a hot surface, whichever door the request came through: open (the door's:
 * request id, client address, headers), admit, answer (a thrown error answered as its refusal),
 * record (the surface's receipt, the access-log line, the metrics), write (the door's). A whole
 * answer is recorded before it is written, as a client that reads it may look for its receipt at
 * once; a stream is recorded once its first frames are on their way, on the check phase after
 * undici's write of the model request the stream dispatched in this turn.
 */
export async function runExchange<Admitted, Written>(
  surface: ExchangeSurface<Admitted>,
  deps: PipelineDeps,
  x: Exchange,
  write: (answer: Answer) => Written,
): Promise<Written> {
  let admitted: Admitted | undefined;
  let answer: Answer;
  let error: unknown;
  try {
    const admitting = surface.admit(x);
    admitted = admitting instanceof Promise ? await admitting : admitting;
    answer = await surface.answer(x, admitted);
  } catch (thrown) {
    error = thrown;
    answer = refusalAnswer(x, thrown, deps.logger);
  }
  if ('stream' in answer) {
    const written = write(answer);
    setImmediate(recordExchange, surface, deps, x, admitted, 200, undefined);
    return written;
  }
  recordExchange(surface, deps, x, admitted, answer.status, error);
  return write(answer);
}

function recordExchange<Admitted>(surface: ExchangeSurface<Admitted>, deps: PipelineDeps, x: Exchange, admitted: Admitted | undefined, status: number, error: unknown): void {
  surface.record?.(x, admitted, status, error);
  requestAnswered(deps.logger, deps.metrics, {
    id: x.requestId,
    method: x.method,
    path: x.path,
    surface: x.surface,
    status,
    started: x.started,
    mappingId: x.mappingId,
    bodyBytes: x.bodyBytes,
    declaredLength: x.headers['content-length'],
  });
}

/** a thrown error as the exchange's answer: its headers set on it, its status and JSON body (error-handler.ts: one shape per surface) */
function refusalAnswer(x: Exchange, thrown: unknown, logger: Logger): WholeAnswer {
  const refusal = answerableError(thrown, logger, x.requestId, x.path);
  for (const name in refusal.headers) x.setHeader(name, refusal.headers[name]!);
  return { status: refusal.status, body: JSON.stringify(errorBody(refusal, x.path)), contentType: 'application/json' };
}
