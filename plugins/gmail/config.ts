import { z } from 'zod';

/** Google's OAuth2 signing keys, which sign Pub/Sub's push tokens (https://www.googleapis.com/oauth2/v3/certs) */
export const GOOGLE_JWKS_URL = 'https://www.googleapis.com/oauth2/v3/certs';
/** a Gmail watch expires after 7 days (users.watch); renewal must come before, with an hour to spare */
export const MAX_RENEW_MINUTES = 7 * 24 * 60 - 60;

/** `hooks.gmail`: written by `herald webhooks gmail setup`, read by the preset and the watcher. */
export const gmailConfigSchema = z
  .object({
    account: z.string().optional().describe('The Gmail address watched; the watcher runs inside `serve` when set.'),
    label: z.string().default('INBOX').describe('Label whose new messages are reported.'),
    topic: z.string().optional().describe('Pub/Sub topic, projects/<project>/topics/<topic>.'),
    subscription: z.string().optional().describe('Pub/Sub push subscription name.'),
    pushToken: z.string().optional().describe('Token Pub/Sub must send as ?token= on each push (the simple option; with `pushOidc` both are checked).'),
    pushOidc: z
      .object({
        serviceAccountEmail: z.string().email().describe('The service account the push subscription signs its tokens as (`pushConfig.oidcToken.serviceAccountEmail`); the token\'s `email` must be it.'),
        audience: z.string().min(1).describe('The token\'s expected `aud` (`pushConfig.oidcToken.audience`; Pub/Sub uses the push endpoint URL when none is set).'),
        jwksUrl: z.string().url().default(GOOGLE_JWKS_URL).describe('Google\'s published signing keys (JWKS); a fake in tests.'),
      })
      .strict()
      .optional()
      .describe('Pub/Sub authenticated push: each push carries `Authorization: Bearer <OIDC JWT>` signed by Google; herald verifies its RS256 signature against Google\'s keys, issuer, audience, expiry and service account email.'),
    pushEndpoint: z.string().url().optional().describe('The public HTTPS URL Pub/Sub pushes to (without ?token=); it must reach serve.path.'),
    hookUrl: z.string().url().optional().describe('Where the watcher posts new mail (default http://127.0.0.1:<gateway.port><hooks.path>/gmail).'),
    includeBody: z.boolean().default(true).describe('Include the decoded text body of each message.'),
    maxBytes: z.number().int().positive().default(20000).describe('Body size cut-off (bodyTruncated marks a cut).'),
    renewEveryMinutes: z
      .number()
      .int()
      .positive()
      .max(MAX_RENEW_MINUTES)
      .default(720)
      .describe('How often the Gmail watch is renewed. A watch expires after 7 days, so at most 6 days 23 hours; the watcher also renews an hour before the expiration Gmail returns, whichever comes first.'),
    leaseSeconds: z
      .number()
      .int()
      .min(1)
      .default(30)
      .describe('Replicas on one store: only the holder of the account\'s watcher lease watches and processes mail; another takes over when it stops, or this long after it died.'),
    recoverMaxMessages: z
      .number()
      .int()
      .positive()
      .max(500)
      .default(10)
      .describe('When the stored historyId is too old (404), how many of the newest messages are checked instead.'),
    dedupeDays: z
      .number()
      .int()
      .positive()
      .default(30)
      .describe('How long a handled message id is remembered (so redelivered pushes make no second run); older records are pruned.'),
    serve: z
      .object({
        bind: z.string().default('127.0.0.1').describe('Address the push endpoint listens on.'),
        port: z.number().int().min(0).max(65535).default(8788).describe('Port of the push endpoint.'),
        path: z.string().default('/gmail-pubsub').describe('Path of the push endpoint.'),
      })
      .strict()
      .default({ bind: '127.0.0.1', port: 8788, path: '/gmail-pubsub' })
      .describe('The Pub/Sub push endpoint of the watcher.'),
    tailscale: z
      .object({
        mode: z.enum(['off', 'serve', 'funnel']).default('off').describe('off; serve (reachable in the tailnet) or funnel (public HTTPS): herald runs the tailscale binary to expose the push endpoint when the watcher starts.'),
        path: z.string().optional().describe('Path the endpoint is published under (default serve.path).'),
        target: z.string().optional().describe('What tailscale proxies to: a port, host:port or URL (default http://127.0.0.1:<serve.port><serve.path>).'),
      })
      .strict()
      .default({ mode: 'off' })
      .describe('Publishing the push endpoint through Tailscale, as OpenClaw does.'),
    oauth: z
      .object({
        clientId: z.string().describe('OAuth client id.'),
        clientSecret: z.string().describe('OAuth client secret.'),
        refreshToken: z.string().describe('Refresh token with the gmail.readonly and pubsub scopes.'),
      })
      .strict()
      .optional()
      .describe('Google OAuth credentials; access tokens are minted from the refresh token.'),
    endpoints: z
      .object({
        oauthToken: z.string().url().default('https://oauth2.googleapis.com/token').describe('OAuth token endpoint.'),
        gmail: z.string().url().default('https://gmail.googleapis.com').describe('Gmail API base URL.'),
        pubsub: z.string().url().default('https://pubsub.googleapis.com').describe('Pub/Sub API base URL.'),
      })
      .strict()
      .default({ oauthToken: 'https://oauth2.googleapis.com/token', gmail: 'https://gmail.googleapis.com', pubsub: 'https://pubsub.googleapis.com' })
      .describe('Google API endpoints (tests point them at a fake).'),
    model: z.string().optional().describe('Model override for gmail runs.'),
    thinking: z.enum(['off', 'minimal', 'low', 'medium', 'high']).optional().describe('Thinking level for gmail runs.'),
    allowUnsafeExternalContent: z.boolean().optional().describe('Turns off the safety wrapper for mail (dangerous).'),
  })
  .strict();

export type GmailConfig = z.output<typeof gmailConfigSchema>;
