import { createHash } from 'node:crypto';
import { uuidV7 } from '../time/uuid-v7.js';
import { HeraldError } from '../errors.js';
import type { IdempotencyRepo } from '../store/port.js';
import type { KeyedRequest } from './dispatch-action.js';

const PRUNE_EVERY_MS = 60_000;

/**
 * What identifies "the same request": its hook path and its exact body bytes. On `/agent` a retry
 * may change only `waitForCompletion` (how long the caller waits, not what runs), so there the
 * parsed body without that field is hashed instead.
 */
export function requestHash(path: string, body: Uint8Array, payload?: unknown): string {
  const hash = createHash('sha256').update(path).update('\n');
  if (path === 'agent' && payload !== null && typeof payload === 'object' && !Array.isArray(payload)) {
    const { waitForCompletion: _, ...rest } = payload as Record<string, unknown>;
    return hash.update(JSON.stringify(rest)).digest('hex');
  }
  return hash.update(body).digest('hex');
}

export interface StoredResponse {
  status: number;
  /** the JSON body; null for 204 */
  body: unknown;
}

export type IdempotencyStart =
  /** first of its key: process it with this run id, then `complete` (or `release` on failure) */
  | { type: 'process'; runId: string }
  /** a repeat: answer the stored response again */
  | { type: 'replay'; response: StoredResponse };

export interface HookIdempotencyOptions {
  ttlMs: number;
  /** how long a request may take before a repeat may assume its process died */
  lockMs: number;
}

/** Idempotency-Key on the webhook surface: one processing per key and path, the response stored and replayed. */
export class HookIdempotency {
  private nextPruneAt = 0;

  constructor(
    private readonly repo: IdempotencyRepo,
    private readonly options: HookIdempotencyOptions,
  ) {}

  /**
   * Claims the key for this request, or answers for it: replay, 409 while in progress, 422 for
   * another request than the stored one. `anyBody`: the key is the sender's delivery id (a
   * mapping's `idempotencyKey`), which names the delivery whatever its bytes, so a repeat with
   * another body is replayed too rather than refused.
   */
  async start(scope: string, key: string, hash: string, now = Date.now(), options: { anyBody?: boolean } = {}): Promise<IdempotencyStart> {
    await this.pruned(now);
    const claim = await this.repo.claim({ ...this.request(scope, key, hash, now), status: 'in_progress', responseStatus: null, responseBody: null }, now);
    const { record } = claim;
    if (claim.type === 'claimed') return { type: 'process', runId: record.runId };
    // in progress: 409 even for another body, since the first may still fail and free the key;
    // a retry then learns the outcome (422 against a success, or its own processing)
    if (record.status === 'in_progress') throw new HeraldError('HERALD_IDEMPOTENCY_IN_PROGRESS', undefined, { headers: { 'Retry-After': '1' } });
    if (record.requestHash !== hash && !options.anyBody) throw new HeraldError('HERALD_IDEMPOTENCY_MISMATCH');
    return {
      type: 'replay',
      response: { status: record.responseStatus ?? 200, body: record.responseBody === null ? null : JSON.parse(record.responseBody) },
    };
  }

  /**
   * The key of a request whose run is stored with it, done, in one commit (DispatchKeyed): a new
   * run id, and the times a claim would have. Expired records are pruned first, as `start` does.
   */
  async keyed(scope: string, key: string, hash: string, now = Date.now()): Promise<KeyedRequest> {
    await this.pruned(now);
    return this.request(scope, key, hash, now);
  }

  private request(scope: string, key: string, hash: string, now: number): KeyedRequest {
    return { scope, key, requestHash: hash, runId: uuidV7(), createdAt: now, lockedUntil: now + this.options.lockMs, expiresAt: now + this.options.ttlMs };
  }

  private async pruned(now: number): Promise<void> {
    if (now < this.nextPruneAt) return;
    this.nextPruneAt = now + PRUNE_EVERY_MS;
    await this.repo.prune(now);
  }

  async complete(scope: string, key: string, response: StoredResponse): Promise<void> {
    await this.repo.complete(scope, key, { status: response.status, body: response.body === null ? null : JSON.stringify(response.body) });
  }

  async release(scope: string, key: string): Promise<void> {
    await this.repo.release(scope, key);
  }
}
