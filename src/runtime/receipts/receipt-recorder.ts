import type { Logger } from 'pino';
import type { HeraldConfig } from '../../config/schema.js';
import type { MappingsEngine } from '../../mappings/mappings-engine.js';
import type { ReceiptAuth, ReceiptFailure, ReceiptOutcome, ReceiptRecord, RetainedPayload, Store } from '../../store/port.js';
import { uuidV7 } from '../../time/uuid-v7.js';
import { retainableHeaders } from './retainable-headers.js';
import { maskedBody } from './masked-body.js';

/** What the webhook surface knows of one request once it has answered it. */
export interface ReceiptInput {
  requestId: string;
  receivedAt: number;
  method: string;
  path: string;
  mappingId?: string;
  status: number;
  errorCode?: string;
  /** the action kind dispatched, a skip, or a stored response replayed; unset for an error */
  outcome?: Exclude<ReceiptOutcome, 'error'>;
  runId?: string;
  eventId?: number;
  idempotencyKey?: string;
  authMethod: ReceiptAuth;
  signature?: string | null;
  clientAddress?: string;
  bodyBytes: number;
  latencyMs: number;
  replayOf?: string;
  /** the raw body, headers and query as received: kept only when retention says so */
  body?: Uint8Array;
  headers?: Record<string, string>;
  query?: Record<string, string>;
  /** the request's trace, when tracing is on */
  traceId?: string;
  /** where and why its mapping failed (never a payload value: see mapping-failure.ts) */
  failure?: ReceiptFailure;
}

/**
 * Writes a receipt for every webhook request and, when the mapping (or `hooks.retainPayloads`)
 * opts in, or its mapping failed (`hooks.retainFailedPayloads`), its payload for replay: only for
 * a request that proved itself (never a stranger's body), within the size cap, without secret
 * headers. A mapping's own `retainPayloads` decides for its requests: all, none (failed ones too),
 * or a sample of the successful ones kept its own number of days.
 */
export class ReceiptRecorder {
  constructor(private readonly deps: { config: HeraldConfig; store: Store; engine: MappingsEngine; logger: Logger }) {}

  /** until when the request's payload is kept, or undefined when it is not */
  private retainedUntil(input: ReceiptInput): number | undefined {
    if (!input.body || input.status === 401 || input.status === 429 || input.status === 405) return undefined;
    const { hooks } = this.deps.config;
    if (input.body.byteLength > hooks.retention.maxPayloadBytes) return undefined;
    const ttl = input.receivedAt + hooks.retention.payloadTtlHours * 3_600_000;
    const own = input.mappingId ? this.deps.engine.mapping(input.mappingId)?.retainPayloads : undefined;
    const failed = input.failure !== undefined;
    if (own === undefined) return hooks.retainPayloads || (failed && hooks.retainFailedPayloads) ? ttl : undefined;
    if (typeof own === 'boolean') return own ? ttl : undefined;
    // a sample of the successful requests (an eval's recorded day at a fraction of the disk), the failed ones as the hooks say
    const kept = failed ? hooks.retainFailedPayloads : Math.random() < own.sample;
    if (!kept) return undefined;
    return own.days === undefined ? ttl : input.receivedAt + own.days * 86_400_000;
  }

  async record(input: ReceiptInput): Promise<ReceiptRecord> {
    const { receipt, payload } = this.receiptOf(input);
    await this.deps.store.receipts.record(receipt, payload);
    return receipt;
  }

  /** for the HTTP layer: recorded after the response, a failure logged (never the body) and never the caller's problem */
  recordLater(input: ReceiptInput): void {
    const failed = (err: unknown) => this.deps.logger.error({ err, reqId: input.requestId }, 'receipt not recorded');
    try {
      const { receipt, payload } = this.receiptOf(input);
      // the store's promise caught, not an async function's around it: one promise fewer per request
      this.deps.store.receipts.record(receipt, payload).catch(failed);
    } catch (err) {
      failed(err);
    }
  }

  private receiptOf(input: ReceiptInput): { receipt: ReceiptRecord; payload?: RetainedPayload } {
    const expiresAt = this.retainedUntil(input);
    const retained = expiresAt !== undefined;
    const receipt: ReceiptRecord = {
      // time-ordered: receipts are inserted at the end of the primary-key index, not at random pages
      id: uuidV7(input.receivedAt),
      requestId: input.requestId,
      receivedAt: input.receivedAt,
      method: input.method,
      path: input.path,
      mappingId: input.mappingId ?? null,
      status: input.status,
      outcome: input.status >= 400 ? 'error' : (input.outcome ?? 'error'),
      errorCode: input.errorCode ?? null,
      runId: input.runId ?? null,
      eventId: input.eventId ?? null,
      idempotencyKey: input.idempotencyKey ?? null,
      authMethod: input.authMethod,
      signature: input.signature ?? null,
      clientAddress: input.clientAddress ?? null,
      bodyBytes: input.bodyBytes,
      latencyMs: Math.round(input.latencyMs * 100) / 100,
      replayOf: input.replayOf ?? null,
      retainedUntil: retained ? expiresAt : null,
    };
    // set when present, not spread: the literal above stays one object of one shape
    if (input.traceId !== undefined) receipt.traceId = input.traceId;
    if (input.failure) receipt.failure = input.failure;
    const payload: RetainedPayload | undefined = retained
      ? {
          receiptId: receipt.id,
          path: input.path,
          // a credential the body carries (a mapping's retainMasked: Discord's interaction token) is not kept
          body: maskedBody(input.body!, this.deps.engine.retainMasked(input.path)),
          headers: retainableHeaders(input.headers ?? {}, this.deps.engine.signedMappings(input.path)),
          query: input.query ?? {},
          expiresAt: expiresAt!,
        }
      : undefined;
    return { receipt, payload };
  }
}
