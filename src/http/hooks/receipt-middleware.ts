import type { MiddlewareHandler } from 'hono';
import { HeraldError } from '../../errors.js';
import { trimSlashes } from '../../mappings/hook-request.js';
import type { ReceiptInput, ReceiptRecorder } from '../../runtime/receipts/receipt-recorder.js';
import { clientAddress } from '../client-address.js';
import { requestTraced } from '../server/request-span.js';

/** what the hook route learns as it goes, for the request's receipt */
export type ReceiptNotes = Partial<Pick<ReceiptInput, 'outcome' | 'runId' | 'eventId' | 'idempotencyKey' | 'authMethod' | 'signature' | 'body' | 'headers' | 'query'>>;

declare module 'hono' {
  interface ContextVariableMap {
    /** filled by the hook route, written as a receipt once the response is known */
    receiptNotes?: ReceiptNotes;
  }
}

/**
 * A receipt for every request of the webhook surface, whatever its outcome: refused, failed,
 * skipped or dispatched. Written after the response is settled (the error handler already ran).
 */
export function receiptMiddleware(recorder: ReceiptRecorder, prefix: string): MiddlewareHandler {
  return async function receiptMiddleware(c, next) {
    const started = performance.now();
    // the notes are the receipt's input itself, filled in as the route learns (no copy at the end)
    const input = openReceipt(c.get('requestId'), c.req.method, trimSlashes(c.req.path.slice(prefix.length)));
    c.set('receiptNotes', input);
    await next();
    input.mappingId = c.get('mappingId');
    input.bodyBytes = c.get('bodyBytes') ?? 0;
    closeReceipt(recorder, input, { status: c.res.status, error: c.error, clientAddress: clientAddress(c), started });
  };
}

/** a request's receipt as it arrives, to be filled in as the route learns */
export function openReceipt(requestId: string, method: string, path: string): ReceiptInput {
  return { requestId, receivedAt: Date.now(), method, path, status: 0, authMethod: 'none', bodyBytes: 0, latencyMs: 0 };
}

/** records the receipt once the request is answered (its mapping and body size set by the caller) */
export function closeReceipt(recorder: ReceiptRecorder, input: ReceiptInput, answer: { status: number; error: unknown; clientAddress: string; started: number }): void {
  input.status = answer.status;
  if (answer.error) input.errorCode = answer.error instanceof HeraldError ? answer.error.code : 'HERALD_INTERNAL';
  input.clientAddress = answer.clientAddress;
  input.latencyMs = performance.now() - answer.started;
  requestTraced(input);
  recorder.recordLater(input);
}
