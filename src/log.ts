import pino, { type Logger } from 'pino';

/**
 * The logger. Secrets are redacted by key wherever they appear; request bodies are never
 * passed to it in the first place (the access log records sizes, not contents).
 */
export const REDACTED_KEYS = [
  'token',
  'apiKey',
  'key',
  'password',
  'secret',
  'authorization',
  'botToken',
  'accessToken',
  'appPassword',
  'refreshToken',
  'clientSecret',
  'pushToken',
];

export function createLogger(options: { level?: string; destination?: pino.DestinationStream } = {}): Logger {
  const paths = REDACTED_KEYS.flatMap((k) => [k, `*.${k}`, `*.*.${k}`]);
  return pino(
    {
      level: options.level ?? process.env.HERALD_LOG_LEVEL ?? 'info',
      base: undefined,
      redact: { paths, censor: '[redacted]' },
    },
    options.destination ?? pino.destination({ dest: 1, sync: false }),
  );
}

export type { Logger };
