import type { Context, MiddlewareHandler } from 'hono';
import { HeraldError } from '../../errors.js';
import { trimSlashes } from '../../mappings/hook-request.js';
import type { ReceiptInput, ReceiptRecorder } from '../../runtime/receipts/receipt-recorder.js';
import { clientAddress } from '../client-address.js';

/** what the hook route learns as it goes, for the request's receipt */
export type ReceiptNotes = Partial<Pick<ReceiptInput, 'outcome' | 'runId' | 'eventId' | 'idempotencyKey' | 'authMethod' | 'signature' | 'body' | 'headers' | 'query'>>;

declare module 'hono' {
  interface ContextVariableMap {
    /** filled by the hook route, written as a receipt once the response is known */
    receiptNotes?: ReceiptNotes;
  }
}

/** adds to the request's receipt notes (nothing when receipts are not recorded) */
export function noteReceipt(c: Context, notes: ReceiptNotes): void {
  const current = c.get('receiptNotes');
  if (current) Object.assign(current, notes);
}

/**
 * A receipt for every request of the webhook surface, whatever its outcome: refused, failed,
 * skipped or dispatched. Written after the response is settled (the error handler already ran).
 */
export function receiptMiddleware(recorder: ReceiptRecorder, prefix: string): MiddlewareHandler {
  return async function receiptMiddleware(c, next) {
    const started = performance.now();
    // the notes are the receipt's input itself, filled in as the route learns (no copy at the end)
    const input: ReceiptInput = {
      requestId: c.get('requestId'),
      receivedAt: Date.now(),
      method: c.req.method,
      path: trimSlashes(c.req.path.slice(prefix.length)),
      status: 0,
      authMethod: 'none',
      bodyBytes: 0,
      latencyMs: 0,
    };
    c.set('receiptNotes', input);
    await next();
    const { error } = c;
    input.mappingId = c.get('mappingId');
    input.status = c.res.status;
    if (error) input.errorCode = error instanceof HeraldError ? error.code : 'HERALD_INTERNAL';
    input.clientAddress = clientAddress(c);
    input.bodyBytes = c.get('bodyBytes') ?? 0;
    input.latencyMs = performance.now() - started;
    recorder.recordLater(input);
  };
}
