import { createRequire } from 'node:module';
import pino, { type Logger } from 'pino';

import { LogBlocks } from './log-blocks.js';
import { censorSecrets } from './log-censor.js';
import { logTraceFields } from '../tracing/tracing.js';

export { REDACTED_KEYS } from './log-censor.js';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

export interface LoggerOptions {
  /** the config's gateway.log.level; HERALD_LOG_LEVEL wins over it (an operator's override for one run) */
  level?: string;
  destination?: pino.DestinationStream;
  /** human-readable lines (pino-pretty) instead of JSON: for a terminal, never for a collector */
  pretty?: boolean;
}

/**
 * The logger. Secrets are censored by key wherever they appear (log-censor.ts); request bodies
 * are never passed to it in the first place (the access log records sizes, not contents).
 * JSON lines on stdout (one object per line, `time` in ISO 8601), for a log collector; human
 * messages (the start banner, generated secrets) go to stderr and never into this stream.
 */
export function createLogger(options: LoggerOptions = {}): Logger {
  const level = process.env.HERALD_LOG_LEVEL || options.level || 'info';
  const destination = options.destination ?? (options.pretty ? prettyStream() : jsonLines());
  const logger = pino(
    {
      level,
      base: undefined,
      timestamp: pino.stdTimeFunctions.isoTime,
      // secrets censored by key (log-censor.ts) in every line
      formatters: { log: censorSecrets },
      // trace_id and span_id of the span a line is written in (nothing while tracing is off)
      mixin: logTraceFields,
    },
    destination,
  );
  // and in child loggers' bindings (pino formats those once, when the child is made, with its own
  // formatter): children inherit this `child`, so grandchildren are covered too
  const child = logger.child;
  logger.child = function censoredChild(this: Logger, bindings, childOptions) {
    return child.call(this, censorSecrets(bindings), childOptions);
  } as Logger['child'];
  return logger;
}

/** stdout, in blocks (log-blocks.ts) */
function jsonLines(): pino.DestinationStream {
  return new LogBlocks(pino.destination({ dest: 1, sync: false }));
}

/** pino-pretty as a stream in this process (no worker thread): colours when stdout is a terminal */
function prettyStream(): pino.DestinationStream {
  // required only here: a JSON-logging gateway never loads pino-pretty
  const pinoPretty = createRequire(import.meta.url)('pino-pretty') as typeof import('pino-pretty');
  return pinoPretty({ destination: 1, sync: true, colorize: process.stdout.isTTY === true, translateTime: 'SYS:yyyy-mm-dd HH:MM:ss.l', ignore: 'pid,hostname' });
}

/** pretty when asked (--pretty, HERALD_LOG_PRETTY=1) or when stdout is a terminal, unless HERALD_LOG_PRETTY=0 */
export function wantsPretty(flag: boolean | undefined, env: NodeJS.ProcessEnv = process.env, tty = process.stdout.isTTY === true): boolean {
  if (flag !== undefined) return flag;
  if (env.HERALD_LOG_PRETTY === '0') return false;
  return env.HERALD_LOG_PRETTY === '1' || tty;
}

export type { Logger };
