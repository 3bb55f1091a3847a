import { HeraldError } from '../../errors.js';
import { mappingFailureOf } from '../../mappings/mapping-failure.js';
import type { ReceiptInput, ReceiptRecorder } from '../../runtime/receipts/receipt-recorder.js';
import { requestTraced } from '../server/request-span.js';

/** what the hook route learns as it goes, for the request's receipt */
export type ReceiptNotes = Partial<Pick<ReceiptInput, 'outcome' | 'runId' | 'eventId' | 'idempotencyKey' | 'authMethod' | 'signature' | 'body' | 'headers' | 'query' | 'failure' | 'errorCode'>>;

/** a request's receipt as it arrives, to be filled in as the route learns */
export function openReceipt(requestId: string, method: string, path: string): ReceiptInput {
  return { requestId, receivedAt: Date.now(), method, path, status: 0, authMethod: 'none', bodyBytes: 0, latencyMs: 0 };
}

/** records the receipt once the request is answered */
export function closeReceipt(recorder: ReceiptRecorder, input: ReceiptInput, answer: { status: number; error: unknown; clientAddress: string; started: number; mappingId: string | undefined; bodyBytes: number | undefined }): void {
  input.status = answer.status;
  if (answer.error) input.errorCode = answer.error instanceof HeraldError ? answer.error.code : 'HERALD_INTERNAL';
  input.clientAddress = answer.clientAddress;
  input.latencyMs = performance.now() - answer.started;
  const failure = mappingFailureOf(answer.error);
  if (failure) input.failure = failure;
  // a mapping that failed before its step was told (its schema, its templates) is named by the failure;
  // a refused signature is not the mapping's request (a stranger's 401 must not count as its traffic)
  input.mappingId = answer.mappingId ?? (failure?.stage === 'auth' ? undefined : failure?.mappingId);
  input.bodyBytes = answer.bodyBytes ?? 0;
  requestTraced(input);
  recorder.recordLater(input);
}
