import { randomBytes } from 'node:crypto';
import { presetName, type PluginCommandContext, type PresetEntry } from '../../../src/plugin-sdk/sdk.js';
import { accessTokenSource, type OAuthCredentials } from '../google/access-tokens.js';
import { applyEdits, editedConfigText, readRawConfig, writeConfigText, type ConfigEdit } from './config-file-edit.js';
import { GmailApi } from '../google/gmail-api.js';
import { GoogleApiError } from '../google/google-api.js';
import { PubSubApi } from '../google/pubsub-api.js';
import { setupHint, type SetupStepId } from './setup-hints.js';
import { MAX_RENEW_MINUTES } from '../config.js';
import { pushConfigOf, storeWatchHistoryId } from '../watcher/gmail-watcher.js';
import { booleanFlag, parseSetupArgs, positiveInt, renewMinutes, SETUP_DEFAULTS, SETUP_USAGE } from './setup-options.js';

interface StepReport {
  step: string;
  status: 'ok' | 'failed' | 'planned';
  detail: string;
  fix?: string;
}

const DEFAULT_ENDPOINTS = { oauthToken: 'https://oauth2.googleapis.com/token', gmail: 'https://gmail.googleapis.com', pubsub: 'https://pubsub.googleapis.com' };
const SECRET_KEYS = new Set(['token', 'pushToken', 'clientSecret', 'refreshToken']);

type Raw = Record<string, any>;

/** `${NAME}` references in the config are read with the environment's values, as `serve` would. */
function expandEnv(value: unknown, env: NodeJS.ProcessEnv, where: string): string | undefined {
  if (typeof value !== 'string') return undefined;
  return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_m, name: string) => {
    const found = env[name];
    if (found === undefined) throw new Error(`${where}: environment variable ${name} is not set`);
    return found;
  });
}

function secret(): string {
  return randomBytes(24).toString('hex');
}

/** The config as printed: secrets replaced, so a terminal or CI log never shows them. */
function redacted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redacted);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, SECRET_KEYS.has(k) && typeof v === 'string' && !v.startsWith('${') ? '[redacted]' : redacted(v)]));
  }
  return value;
}

/** Where the OAuth credentials come from: flags, else GOOGLE_* variables, else hooks.gmail.oauth. */
function credentialsFrom(values: ReturnType<typeof parseSetupArgs>, env: NodeJS.ProcessEnv, existing: Raw | undefined) {
  const fields = [
    ['clientId', 'client-id', 'GOOGLE_CLIENT_ID'],
    ['clientSecret', 'client-secret', 'GOOGLE_CLIENT_SECRET'],
    ['refreshToken', 'refresh-token', 'GOOGLE_REFRESH_TOKEN'],
  ] as const;
  const resolved: Partial<OAuthCredentials> = {};
  const written: Partial<OAuthCredentials> = {};
  let changed = false;
  const missing: string[] = [];
  for (const [key, flag, variable] of fields) {
    const fromFlag = values[flag];
    if (fromFlag) {
      resolved[key] = fromFlag;
      written[key] = fromFlag;
      changed = true;
    } else if (env[variable]) {
      // the file gets the reference, never the secret itself
      resolved[key] = env[variable];
      written[key] = `\${${variable}}`;
      changed = true;
    } else if (existing?.[key]) {
      resolved[key] = expandEnv(existing[key], env, `hooks.gmail.oauth.${key}`);
      written[key] = existing[key];
    } else missing.push(`--${flag} (or ${variable}, or hooks.gmail.oauth.${key})`);
  }
  return { credentials: resolved as OAuthCredentials, written: written as OAuthCredentials, changed, missing };
}

/** `--oidc-service-account` (else what an earlier setup wrote): the push subscription signs tokens, the watcher checks them */
function oidcFrom(values: ReturnType<typeof parseSetupArgs>, gmailOld: Raw, pushEndpoint: string | undefined) {
  const old = gmailOld.pushOidc && typeof gmailOld.pushOidc === 'object' ? (gmailOld.pushOidc as Raw) : undefined;
  const serviceAccountEmail = values['oidc-service-account'] ?? old?.serviceAccountEmail;
  if (!serviceAccountEmail) return undefined;
  const endpoint = pushEndpoint ? new URL(pushEndpoint) : undefined;
  endpoint && (endpoint.search = '');
  const audience = values['oidc-audience'] ?? old?.audience ?? endpoint?.toString();
  if (!audience) throw new Error('--oidc-audience is needed when there is no --push-endpoint');
  return { serviceAccountEmail: String(serviceAccountEmail), audience: String(audience), ...(old?.jwksUrl ? { jwksUrl: String(old.jwksUrl) } : {}) };
}

/** A role granted moments ago may not be in force yet: Gmail's watch then fails its test publish with a 403. */
const isPublishNotYetAllowed = (error: unknown) =>
  error instanceof GoogleApiError && error.status === 403 && /sending test message to Cloud PubSub/i.test(error.message);

/** waits before retrying the watch while a just-granted publisher role propagates (IAM takes up to a few minutes) */
export const IAM_PROPAGATION_WAITS_MS = [5_000, 10_000, 20_000, 30_000, 60_000];

/** `herald webhooks gmail setup`: Pub/Sub topic, permission, push subscription, Gmail watch, then the config. */
export async function setupCommand(
  argv: string[],
  ctx: PluginCommandContext,
  env: NodeJS.ProcessEnv = process.env,
  iamWaitsMs: number[] = IAM_PROPAGATION_WAITS_MS,
): Promise<number> {
  const out = (line: string) => ctx.stdout.write(`${line}\n`);
  const err = (line: string) => ctx.stderr.write(`${line}\n`);
  let values: ReturnType<typeof parseSetupArgs>;
  try {
    values = parseSetupArgs(argv);
  } catch (error) {
    err(`herald: ${(error as Error).message}`);
    err(SETUP_USAGE);
    return 2;
  }
  if (values.help) {
    out(SETUP_USAGE);
    return 0;
  }
  const missingRequired = (['account', 'project'] as const).filter((k) => !values[k]);
  if (missingRequired.length) {
    err(`herald: webhooks gmail setup needs ${missingRequired.map((k) => `--${k}`).join(' and ')}`);
    err(SETUP_USAGE);
    return 2;
  }
  const account = values.account!;
  const project = values.project!;
  const file = ctx.configPath;
  const dryRun = Boolean(values['dry-run']);
  const steps: StepReport[] = [];
  const report = (entry: StepReport) => {
    steps.push(entry);
    if (values.json) return;
    const mark = entry.status === 'ok' ? '✓' : entry.status === 'failed' ? '✗' : '•';
    out(`${mark} ${entry.step}: ${entry.detail}`);
    if (entry.fix) out(`  fix: ${entry.fix}`);
  };
  const finish = (ok: boolean, extra: Record<string, unknown> = {}) => {
    if (values.json) out(JSON.stringify({ ok, dryRun, file, steps, ...extra }, null, 2));
    return ok ? 0 : 1;
  };

  let raw: Raw;
  let gmailOld: Raw;
  let credentials: ReturnType<typeof credentialsFrom>;
  let endpoints: typeof DEFAULT_ENDPOINTS;
  let settings;
  try {
    raw = readRawConfig(file).value;
    const hooksOld: Raw = raw.hooks && typeof raw.hooks === 'object' ? raw.hooks : {};
    gmailOld = hooksOld.gmail && typeof hooksOld.gmail === 'object' ? hooksOld.gmail : {};
    credentials = credentialsFrom(values, env, gmailOld.oauth);
    const endpointsOld: Raw = gmailOld.endpoints ?? {};
    endpoints = {
      oauthToken: expandEnv(endpointsOld.oauthToken, env, 'hooks.gmail.endpoints.oauthToken') ?? DEFAULT_ENDPOINTS.oauthToken,
      gmail: expandEnv(endpointsOld.gmail, env, 'hooks.gmail.endpoints.gmail') ?? DEFAULT_ENDPOINTS.gmail,
      pubsub: expandEnv(endpointsOld.pubsub, env, 'hooks.gmail.endpoints.pubsub') ?? DEFAULT_ENDPOINTS.pubsub,
    };
    const serveOld: Raw = gmailOld.serve ?? {};
    // flags, else what an earlier setup wrote, else the defaults: running setup again changes only what is asked
    const topicName = values.topic ?? (typeof gmailOld.topic === 'string' && gmailOld.topic.startsWith(`projects/${project}/topics/`) ? gmailOld.topic : SETUP_DEFAULTS.topic);
    const topic = topicName.startsWith('projects/') ? topicName : `projects/${project}/topics/${topicName}`;
    const subscriptionName = values.subscription ?? gmailOld.subscription ?? SETUP_DEFAULTS.subscription;
    const subscription = subscriptionName.startsWith('projects/') ? subscriptionName.split('/').at(-1)! : subscriptionName;
    const gatewayPort = typeof raw.gateway?.port === 'number' ? raw.gateway.port : 8787;
    const hooksPath = typeof hooksOld.path === 'string' ? hooksOld.path.replace(/\/+$/, '') : '/hooks';
    const pushEndpoint = values['push-endpoint'] ?? gmailOld.pushEndpoint;
    settings = {
      topic,
      subscription,
      label: values.label ?? gmailOld.label ?? SETUP_DEFAULTS.label,
      hookUrl: values['hook-url'] ?? gmailOld.hookUrl ?? `http://127.0.0.1:${gatewayPort}${hooksPath}/gmail`,
      hookToken: values['hook-token'] ?? hooksOld.token ?? secret(),
      hookTokenKept: !values['hook-token'] && Boolean(hooksOld.token),
      pushToken: values['push-token'] ?? gmailOld.pushToken ?? secret(),
      pushEndpoint: typeof pushEndpoint === 'string' ? pushEndpoint : undefined,
      bind: values.bind ?? serveOld.bind ?? SETUP_DEFAULTS.bind,
      port: positiveInt('port', values.port, serveOld.port ?? SETUP_DEFAULTS.port),
      path: values.path ?? serveOld.path ?? SETUP_DEFAULTS.path,
      includeBody: values['no-include-body'] ? false : booleanFlag('include-body', values['include-body'], gmailOld.includeBody ?? SETUP_DEFAULTS.includeBody),
      maxBytes: positiveInt('max-bytes', values['max-bytes'], gmailOld.maxBytes ?? SETUP_DEFAULTS.maxBytes),
      renewEveryMinutes: renewMinutes(values['renew-minutes'], gmailOld.renewEveryMinutes ?? SETUP_DEFAULTS.renewEveryMinutes, MAX_RENEW_MINUTES),
      oidc: oidcFrom(values, gmailOld, typeof pushEndpoint === 'string' ? pushEndpoint : undefined),
      presets: Array.isArray(hooksOld.presets) ? (hooksOld.presets as unknown[]) : [],
    };
  } catch (error) {
    report({ step: 'read the config', status: 'failed', detail: (error as Error).message, fix: `fix ${file} or the flags above` });
    return finish(false);
  }

  const problems: string[] = [];
  if (credentials.missing.length) problems.push(`OAuth credentials missing: ${credentials.missing.join(', ')}`);
  if (!settings.pushEndpoint) problems.push('--push-endpoint is missing: the public https:// URL that reaches the watcher (see docs/gmail.md, Exposing the push endpoint)');
  else if (/^http:\/\//i.test(settings.pushEndpoint) && !values['allow-http']) {
    problems.push('--push-endpoint is http://: the push token would travel in clear; use https:// (or pass --allow-http, e.g. behind a TLS-terminating tunnel you trust)');
  } else if (!/^https?:\/\//i.test(settings.pushEndpoint)) problems.push('--push-endpoint must be an https:// URL');
  if (problems.length && !dryRun) {
    for (const problem of problems) report({ step: 'check the options', status: 'failed', detail: problem });
    return finish(false);
  }

  const pushConfig = pushConfigOf({ pushEndpoint: settings.pushEndpoint, pushToken: settings.pushToken, pushOidc: settings.oidc });
  const subscriptionPath = `projects/${project}/subscriptions/${settings.subscription}`;

  const edits: ConfigEdit[] = [
    { path: ['hooks', 'enabled'], value: true },
    ...(settings.hookTokenKept ? [] : [{ path: ['hooks', 'token'], value: settings.hookToken }]),
    ...(settings.presets.some((entry) => presetName(entry as PresetEntry) === 'gmail') ? [] : [{ path: ['hooks', 'presets'], value: [...settings.presets, 'gmail'] }]),
    ...(
      [
        ['account', account],
        ['label', settings.label],
        ['topic', settings.topic],
        ['subscription', settings.subscription],
        ['pushToken', settings.pushToken],
        ['pushEndpoint', settings.pushEndpoint],
        ['hookUrl', settings.hookUrl],
        ['includeBody', settings.includeBody],
        ['maxBytes', settings.maxBytes],
        ['renewEveryMinutes', settings.renewEveryMinutes],
      ] as const
    )
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => ({ path: ['hooks', 'gmail', k], value: v })),
    { path: ['hooks', 'gmail', 'serve', 'bind'], value: settings.bind },
    { path: ['hooks', 'gmail', 'serve', 'port'], value: settings.port },
    { path: ['hooks', 'gmail', 'serve', 'path'], value: settings.path },
    ...(settings.oidc ? [{ path: ['hooks', 'gmail', 'pushOidc'], value: settings.oidc }] : []),
    ...(credentials.changed ? [{ path: ['hooks', 'gmail', 'oauth'], value: credentials.written }] : []),
  ];

  const plan: [SetupStepId, string][] = [
    ['token', 'get an access token from the refresh token'],
    ['topic', `create topic ${settings.topic}`],
    ['publisher', 'let gmail-api-push@system.gserviceaccount.com publish to it'],
    ['subscription', `push subscription ${subscriptionPath} -> ${settings.pushEndpoint ?? '(push endpoint missing)'}`],
    ['watch', `watch ${account} label ${settings.label}`],
  ];

  if (dryRun) {
    for (const problem of problems) report({ step: 'check the options', status: 'failed', detail: problem });
    for (const [, label] of plan) report({ step: label, status: 'planned', detail: 'dry run, not done' });
    report({ step: `update ${file}`, status: 'planned', detail: 'dry run, not written' });
    const hooks = redacted(applyEdits(raw, edits).hooks);
    if (!values.json) out(`\nhooks (as it would be written):\n${JSON.stringify(hooks, null, 2)}`);
    return finish(problems.length === 0, { hooks });
  }

  const token = accessTokenSource(endpoints.oauthToken, credentials.credentials);
  const pubsub = new PubSubApi(endpoints.pubsub, token);
  const gmail = new GmailApi(endpoints.gmail, token);
  let roleJustAdded = false;
  let watchedHistoryId: string | undefined;
  const watchOnceAllowed = async () => {
    for (let attempt = 0; ; attempt++) {
      try {
        return await gmail.watch(settings.topic, settings.label);
      } catch (error) {
        const wait = iamWaitsMs[attempt];
        if (!roleJustAdded || wait === undefined || !isPublishNotYetAllowed(error)) throw error;
        if (!values.json) out(`  … the publisher role is not in force yet; trying again in ${Math.round(wait / 1000)}s`);
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
    }
  };
  const actions: Record<SetupStepId, () => Promise<string>> = {
    token: async () => (await token(), 'ok'),
    topic: async () => ((await pubsub.ensureTopic(settings.topic)) === 'created' ? 'created' : 'exists already'),
    publisher: async () => {
      roleJustAdded = (await pubsub.ensureGmailPublisher(settings.topic)) === 'added';
      return roleJustAdded ? 'role added' : 'already allowed';
    },
    subscription: async () => `${await pubsub.ensurePushSubscription(subscriptionPath, settings.topic, pushConfig!)}, never expires`,
    watch: async () => {
      const watch = await watchOnceAllowed();
      watchedHistoryId = watch.historyId;
      const expires = watch.expiration ? `, expires ${new Date(Number(watch.expiration)).toISOString()}` : '';
      return `historyId ${watch.historyId}${expires}`;
    },
  };
  for (const [id, label] of plan) {
    try {
      report({ step: label, status: 'ok', detail: await actions[id]() });
    } catch (error) {
      const detail = error instanceof GoogleApiError ? error.message : (error as Error).message;
      const fix = error instanceof GoogleApiError ? setupHint(id, error, project) : undefined;
      report({ step: label, status: 'failed', detail, fix });
      return finish(false);
    }
  }

  try {
    const edited = editedConfigText(file, edits);
    writeConfigText(file, edited.text);
    const kept = edited.format === 'json' ? '' : edited.commentsKept ? ', comments kept' : ', rewritten (comments could not be kept)';
    report({ step: `update ${file}`, status: 'ok', detail: `${edited.format}${kept}` });
  } catch (error) {
    report({ step: `update ${file}`, status: 'failed', detail: (error as Error).message, fix: 'check the file is writable and valid' });
    return finish(false);
  }
  // the watch's historyId is where new mail starts: stored now, so a push queued since setup
  // never makes the watcher replay older mail
  if (watchedHistoryId && ctx.openHost) {
    const step = `store the starting point (historyId ${watchedHistoryId})`;
    try {
      const host = await ctx.openHost();
      try {
        await storeWatchHistoryId(host.host.state, account, watchedHistoryId);
      } finally {
        await host.close();
      }
      report({ step, status: 'ok', detail: 'mail received before it is never reported' });
    } catch (error) {
      // not fatal: the watcher takes its own first watch as the starting point
      report({ step, status: 'failed', detail: (error as Error).message, fix: 'the watcher will start from its first watch instead; fix the config and run setup again to pin it now' });
    }
  }
  if (!values.json) {
    out('');
    out(`Done. Start herald (\`herald serve --config ${file}\`) or the watcher alone (\`herald webhooks gmail run\`);`);
    out(`Pub/Sub pushes to ${settings.pushEndpoint}, which must reach http://${settings.bind}:${settings.port}${settings.path}.`);
  }
  return finish(true);
}
