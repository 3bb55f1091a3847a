import { parseArgs } from 'node:util';

/** The options of `herald webhooks gmail setup`, with the defaults. */
export const setupOptionSpec = {
  account: { type: 'string' },
  project: { type: 'string' },
  topic: { type: 'string' },
  subscription: { type: 'string' },
  label: { type: 'string' },
  'hook-url': { type: 'string' },
  'hook-token': { type: 'string' },
  'push-token': { type: 'string' },
  bind: { type: 'string' },
  port: { type: 'string' },
  path: { type: 'string' },
  'push-endpoint': { type: 'string' },
  'allow-http': { type: 'boolean' },
  'oidc-service-account': { type: 'string' },
  'oidc-audience': { type: 'string' },
  'include-body': { type: 'string' },
  'no-include-body': { type: 'boolean' },
  'max-bytes': { type: 'string' },
  'renew-minutes': { type: 'string' },
  'client-id': { type: 'string' },
  'client-secret': { type: 'string' },
  'refresh-token': { type: 'string' },
  config: { type: 'string', short: 'c' },
  'dry-run': { type: 'boolean' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

export const SETUP_DEFAULTS = {
  topic: 'gog-gmail-watch',
  subscription: 'gog-gmail-watch-push',
  label: 'INBOX',
  bind: '127.0.0.1',
  port: 8788,
  path: '/gmail-pubsub',
  includeBody: true,
  maxBytes: 20000,
  renewEveryMinutes: 720,
} as const;

export const SETUP_USAGE = `usage: herald webhooks gmail setup --account ADDRESS --project GCP_PROJECT [options]

  --account ADDRESS        the Gmail address to watch (required)
  --project ID             the Google Cloud project of the Pub/Sub topic (required)
  --topic NAME             Pub/Sub topic (default ${SETUP_DEFAULTS.topic})
  --subscription NAME      Pub/Sub push subscription (default ${SETUP_DEFAULTS.subscription})
  --label LABEL            Gmail label watched (default ${SETUP_DEFAULTS.label})
  --push-endpoint URL      the public HTTPS URL Pub/Sub pushes to (required on the first run)
  --allow-http             accept an http:// push endpoint (the push token would travel in clear)
  --oidc-service-account EMAIL   authenticated push: Pub/Sub signs an OIDC token as EMAIL and the
                           watcher verifies it (with ?token= kept as well)
  --oidc-audience AUD      the token's audience (default: the push endpoint URL)
  --bind ADDR --port N --path P   where the watcher listens (default ${SETUP_DEFAULTS.bind}:${SETUP_DEFAULTS.port}${SETUP_DEFAULTS.path})
  --hook-url URL           where new mail is posted (default http://127.0.0.1:<gateway.port><hooks.path>/gmail)
  --hook-token T           hooks.token (default: keep the current one, else generate)
  --push-token T           the ?token= Pub/Sub must send (default: keep, else generate)
  --include-body true|false, --no-include-body   include the text body (default true)
  --max-bytes N            body cut-off (default ${SETUP_DEFAULTS.maxBytes})
  --renew-minutes N        watch renewal period (default ${SETUP_DEFAULTS.renewEveryMinutes})
  --client-id, --client-secret, --refresh-token   OAuth credentials (else GOOGLE_CLIENT_ID,
                           GOOGLE_CLIENT_SECRET, GOOGLE_REFRESH_TOKEN, else hooks.gmail.oauth)
  --config FILE            the config file to update (default ./herald.json5 or HERALD_CONFIG)
  --dry-run                print the steps and the config, change nothing
  --json                   print one JSON report instead of lines
`;

export function parseSetupArgs(argv: string[]) {
  return parseArgs({ args: argv, options: setupOptionSpec, strict: true, allowPositionals: false }).values;
}

export function positiveInt(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new Error(`--${name}: expected a whole number, got "${value}"`);
  return n;
}

/** a watch expires after 7 days: renewing less often would let it lapse */
export function renewMinutes(value: string | undefined, fallback: number, max: number): number {
  const n = positiveInt('renew-minutes', value, fallback);
  if (n < 1 || n > max) throw new Error(`--renew-minutes: at most ${max} (a Gmail watch expires after 7 days), got ${n}`);
  return n;
}

export function booleanFlag(name: string, value: string | undefined, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (/^(true|yes|1)$/i.test(value)) return true;
  if (/^(false|no|0)$/i.test(value)) return false;
  throw new Error(`--${name}: expected true or false, got "${value}"`);
}
