import type { Logger } from 'pino';

/**
 * What a log line may say of an error. Messages quote what they choke on (a JSONata cast error
 * quotes the payload value, a transform throws whatever it likes, a model error may echo the
 * prompt), so by default a line carries the error's kind and code only. `gateway.log.verboseErrors`
 * adds the message and stack, for debugging on a trusted log sink.
 *
 * The switch lives on the root logger: pino's child loggers inherit their parent's properties,
 * so every part of herald sees it without being handed one more option.
 */
const VERBOSE = Symbol('herald.verboseErrors');

export function setVerboseErrors(logger: Logger, on: boolean): void {
  (logger as unknown as Record<symbol, boolean>)[VERBOSE] = on;
}

export function verboseErrors(logger: Logger | undefined): boolean {
  return (logger as unknown as Record<symbol, boolean> | undefined)?.[VERBOSE] === true;
}

/** `{ err }` (message and stack) when verbose, else `{ error: <name>, code? }` */
export function errorDetail(logger: Logger | undefined, error: unknown): Record<string, unknown> {
  if (verboseErrors(logger)) return { err: error };
  const e = error as { name?: unknown; code?: unknown; constructor?: { name?: string } } | undefined;
  const name = typeof e?.name === 'string' ? e.name : (e?.constructor?.name ?? typeof error);
  return { error: name, ...((typeof e?.code === 'string' || typeof e?.code === 'number') && { code: e.code }) };
}
