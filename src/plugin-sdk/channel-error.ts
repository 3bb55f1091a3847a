/**
 * How a send failed, as the platform's documented codes classify it: `permanent` (the recipient is
 * gone, the bot was removed or blocked, the credentials are wrong: resending cannot help, the
 * delivery fails at once) or `transient` (a timeout, a 5xx, a rate limit: retried on the
 * delivery's schedule, after `retryAfterMs` when the platform gave one). `reason` is the platform's
 * own word for it (`channel_not_found`, `10003 Unknown Channel`, `Forbidden: bot was blocked by the user`).
 */
export interface SendFailure {
  kind: 'permanent' | 'transient';
  reason: string;
  status?: number;
  retryAfterMs?: number;
}

/**
 * A failed send. `retryable` marks transient failures (network errors, 5xx, 408, 429 and whatever the
 * platform documents as temporary); `retryAfterMs` honours the platform's hint (the outbox waits at
 * least that long, even past the retry schedule's `maxMs`). `reason` is the platform's error code or
 * text. `body` is the platform's parsed error answer, for a plugin that reacts to it (Telegram's
 * `migrate_to_chat_id`); it is never logged.
 */
export class ChannelError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly status?: number,
    readonly retryAfterMs?: number,
    readonly body?: unknown,
    readonly reason?: string,
  ) {
    super(message);
    this.name = 'ChannelError';
  }

  /** a refusal resending cannot change */
  static permanent(message: string, reason: string, status?: number): ChannelError {
    return new ChannelError(message, false, status, undefined, undefined, reason);
  }

  /** a failure worth another attempt, after `retryAfterMs` when the platform said so */
  static transient(message: string, reason: string, status?: number, retryAfterMs?: number): ChannelError {
    return new ChannelError(message, true, status, retryAfterMs, undefined, reason);
  }

  /** the typed outcome the outbox acts on */
  get outcome(): SendFailure {
    return {
      kind: this.retryable ? 'transient' : 'permanent',
      reason: this.reason ?? this.message,
      ...(this.status !== undefined && { status: this.status }),
      ...(this.retryAfterMs !== undefined && { retryAfterMs: this.retryAfterMs }),
    };
  }
}
