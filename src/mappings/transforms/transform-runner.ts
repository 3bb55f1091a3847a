/** What a transform is called with: plain data, cloned into the thread that runs it. */
export interface TransformContext {
  payload: unknown;
  headers: Record<string, string>;
  query: Record<string, string>;
  path: string;
  url: string;
  /** the mapping being applied, as configured (with its resolved id) */
  mapping: Record<string, unknown>;
}

export type TransformFunction = (ctx: TransformContext) => unknown;

/** A transform that cannot be used as configured: the caller turns it into a ConfigError. */
export class TransformConfigError extends Error {}

/**
 * The folder or the module is not there (yet): OpenClaw loads a transform on first use, so a
 * config naming one that is missing still starts; the mapping fails (500) until the file appears.
 */
export class TransformMissingError extends TransformConfigError {}

/** A transform file found inside `hooks.transformsDir` (its real path) at its current version. */
export interface LocatedTransform {
  file: string;
  version: string;
  exportName?: string;
}

/**
 * Where transforms run: the gateway's worker pool (transform-pool.ts), or the calling thread for
 * the command-line dry runs (in-process-transforms.ts).
 */
export interface TransformRunner {
  /** imports the module and checks its export is a function (at load: a fault names the mapping) */
  check(module: LocatedTransform, timeoutMs: number): Promise<void>;
  /** what the transform returned, as plain data */
  call(module: LocatedTransform, ctx: TransformContext, timeoutMs: number): Promise<unknown>;
}

/** Why a transform call failed, as its log line names it. */
export type TransformCause = 'TransformTimeout' | 'TransformMemory' | 'TransformError';

/** An error named after its cause (the log line's `error` is an error's name). */
export function transformFailure(cause: Exclude<TransformCause, 'TransformError'>, message: string): Error {
  return Object.assign(new Error(message), { name: cause });
}

export function transformCause(error: unknown): TransformCause {
  const name = (error as { name?: unknown } | undefined)?.name;
  return name === 'TransformTimeout' || name === 'TransformMemory' ? name : 'TransformError';
}
