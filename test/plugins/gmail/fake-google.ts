import { createSign, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { startFakeServer, type FakeServer, type RecordedRequest } from '../../helpers/fake-server.js';

export const CLIENT_ID = 'client-id-123.apps.googleusercontent.com';
export const CLIENT_SECRET = 'client-secret-XYZ-very-secret';
export const REFRESH_TOKEN = '1//refresh-token-SECRET-abc';
export const ACCESS_TOKEN = 'ya29.access-token-SECRET-def';

export interface FakeMail {
  id: string;
  from?: string;
  to?: string;
  subject?: string;
  text?: string;
  html?: string;
  labels?: string[];
  /** when Gmail received it (internalDate, epoch ms); now by default */
  receivedAt?: number;
  /** the text body is kept out of the message, as Gmail does with large bodies: `body.attachmentId`, fetched with attachments.get */
  detached?: boolean;
}

/**
 * A fake of Google's REST APIs, each behaving as documented:
 * - OAuth token: https://developers.google.com/identity/protocols/oauth2/web-server#offline (`{error, error_description}` on 400)
 * - Pub/Sub: https://cloud.google.com/pubsub/docs/reference/rest/v1/projects.topics and .subscriptions
 *   (PUT create, 409 ALREADY_EXISTS, GET 404 NOT_FOUND for a missing subscription, PATCH with updateMask,
 *   getIamPolicy as GET, setIamPolicy as POST with etag check, conditional bindings kept as sent)
 * - Gmail: https://developers.google.com/gmail/api/reference/rest/v1/users (watch, history with 404 for a
 *   stale startHistoryId, messages.get, messages.list, messages.attachments.get, getProfile)
 * - Google's signing keys for OIDC tokens: https://www.googleapis.com/oauth2/v3/certs (JWKS, Cache-Control max-age)
 * Errors are `{error:{code, message, status}}` (https://cloud.google.com/apis/design/errors).
 */

/**
 * A fake of Google's token, Pub/Sub and Gmail REST APIs on 127.0.0.1: one server (the three
 * endpoints point at it), in-memory topics, policies, subscriptions and a mailbox with history.
 */
export class FakeGoogle {
  server!: FakeServer;
  topics = new Set<string>();
  policies = new Map<string, { bindings: { role: string; members: string[]; condition?: unknown }[]; etag: string; version?: number }>();
  subscriptions = new Map<string, { topic: string; pushConfig: { pushEndpoint: string; oidcToken?: { serviceAccountEmail: string; audience?: string } }; expirationPolicy: { ttl?: string } }>();
  attachments = new Map<string, string>();
  /** the RSA key Google signs push tokens with here (its public half is served as JWKS) */
  readonly signingKey: KeyObject;
  readonly kid = 'fake-key-1';
  messages = new Map<string, Record<string, unknown>>();
  history: { id: string; messageId: string; labels: string[] }[] = [];
  historyId = 1000;
  /** history reads starting before this id answer 404 (the id is too old) */
  staleBefore = 0;
  /** history entries per page, to exercise paging */
  pageSize = 2;
  /** answer this status on a path prefix (e.g. make Pub/Sub refuse); with `times`, only that many times */
  failures = new Map<string, { status: number; body: unknown; times?: number }>();
  /** access tokens minted (the first is ACCESS_TOKEN, later ones ACCESS_TOKEN-2, -3, ...) and those revoked */
  issued: string[] = [];
  revoked = new Set<string>();

  constructor() {
    this.signingKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
  }

  /** an OIDC ID token as Pub/Sub sends it for an authenticated push, signed RS256 with the served key */
  pushToken(claims: Record<string, unknown>, options: { kid?: string; key?: KeyObject } = {}): string {
    const enc = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
    const now = Math.floor(Date.now() / 1000);
    const head = enc({ alg: 'RS256', kid: options.kid ?? this.kid, typ: 'JWT' });
    const body = enc({ iss: 'https://accounts.google.com', iat: now, exp: now + 3600, email_verified: true, sub: '1234', ...claims });
    const signature = createSign('RSA-SHA256').update(`${head}.${body}`).sign(options.key ?? this.signingKey).toString('base64url');
    return `${head}.${body}.${signature}`;
  }

  static async start(): Promise<FakeGoogle> {
    const fake = new FakeGoogle();
    fake.server = await startFakeServer((r) => fake.handle(r));
    return fake;
  }

  get url(): string {
    return this.server.url;
  }

  get requests(): RecordedRequest[] {
    return this.server.requests;
  }

  endpoints() {
    return { oauthToken: `${this.url}/token`, gmail: this.url, pubsub: this.url };
  }

  get jwksUrl(): string {
    return `${this.url}/oauth2/v3/certs`;
  }

  /** a new message in the mailbox; returns the mailbox history id after it */
  addMail(mail: FakeMail): string {
    this.historyId += 1;
    const labels = mail.labels ?? ['INBOX', 'UNREAD'];
    const enc = (s: string) => Buffer.from(s, 'utf8').toString('base64url');
    const textBody = (text: string) => {
      if (!mail.detached) return { size: Buffer.byteLength(text), data: enc(text) };
      const attachmentId = `ANGjdJ-${mail.id}-body`;
      this.attachments.set(`${mail.id}/${attachmentId}`, enc(text));
      return { size: Buffer.byteLength(text), attachmentId };
    };
    const parts = [
      ...(mail.text !== undefined ? [{ partId: '0', mimeType: 'text/plain', filename: '', headers: [], body: textBody(mail.text) }] : []),
      ...(mail.html !== undefined ? [{ partId: '1', mimeType: 'text/html', headers: [], body: { size: mail.html.length, data: enc(mail.html) } }] : []),
      { partId: '2', mimeType: 'application/pdf', filename: 'invoice.pdf', body: { attachmentId: 'att-1', size: 10 } },
    ];
    this.messages.set(mail.id, {
      id: mail.id,
      threadId: `thread-${mail.id}`,
      labelIds: labels,
      snippet: (mail.text ?? '').slice(0, 40),
      historyId: String(this.historyId),
      internalDate: String(mail.receivedAt ?? Date.now()),
      payload: {
        mimeType: 'multipart/mixed',
        headers: [
          { name: 'From', value: mail.from ?? 'Alice <alice@example.com>' },
          { name: 'To', value: mail.to ?? 'me@example.com' },
          { name: 'Subject', value: mail.subject ?? 'Hello' },
          { name: 'Date', value: 'Mon, 1 Jan 2024 10:00:00 +0000' },
        ],
        parts: [{ mimeType: 'multipart/alternative', parts: parts.slice(0, -1) }, parts.at(-1)],
      },
    });
    this.history.push({ id: String(this.historyId), messageId: mail.id, labels });
    return String(this.historyId);
  }

  /** what a user revoking access (or Google expiring tokens early) does: every token minted so far is refused with 401 */
  revokeAccessTokens(): void {
    for (const token of this.issued) this.revoked.add(token);
  }

  calls(method: string, pathPrefix: string): RecordedRequest[] {
    return this.requests.filter((r) => r.method === method && r.path.startsWith(pathPrefix));
  }

  private handle(r: RecordedRequest) {
    for (const [prefix, answer] of this.failures) {
      if (!r.path.startsWith(prefix)) continue;
      if (answer.times !== undefined && --answer.times <= 0) this.failures.delete(prefix);
      return { status: answer.status, body: answer.body };
    }
    if (r.path === '/oauth2/v3/certs') {
      const jwk = this.signingKey.export({ format: 'jwk' }) as Record<string, unknown>;
      return { headers: { 'cache-control': 'public, max-age=21600' }, body: { keys: [{ kty: 'RSA', alg: 'RS256', use: 'sig', kid: this.kid, n: jwk.n, e: jwk.e }] } };
    }
    if (r.path === '/token') {
      const form = new URLSearchParams(r.body);
      if (form.get('refresh_token') !== REFRESH_TOKEN || form.get('client_secret') !== CLIENT_SECRET) {
        return { status: 400, body: { error: 'invalid_grant', error_description: 'Bad Request' } };
      }
      const token = this.issued.length ? `${ACCESS_TOKEN}-${this.issued.length + 1}` : ACCESS_TOKEN;
      this.issued.push(token);
      return { body: { access_token: token, expires_in: 3599, token_type: 'Bearer' } };
    }
    const bearer = r.headers.authorization?.replace(/^Bearer /, '');
    if (!bearer || !this.issued.includes(bearer) || this.revoked.has(bearer)) return { status: 401, body: { error: { code: 401, message: 'Invalid Credentials', status: 'UNAUTHENTICATED' } } };
    const pubsub = /^\/v1\/(projects\/[^/]+\/(topics|subscriptions)\/[^/:]+)(:\w+)?$/.exec(r.path);
    if (pubsub) return this.pubsub(r, pubsub[1]!, pubsub[2]!, pubsub[3]);
    if (r.path.startsWith('/gmail/v1/users/me/')) return this.gmail(r, r.path.slice('/gmail/v1/users/me/'.length));
    return { status: 404, body: { error: { code: 404, message: 'no such API', status: 'NOT_FOUND' } } };
  }

  private pubsub(r: RecordedRequest, name: string, kind: string, verb: string | undefined) {
    const exists = { status: 409, body: { error: { code: 409, message: 'Resource already exists in the project', status: 'ALREADY_EXISTS' } } };
    if (kind === 'topics') {
      if (!verb && r.method === 'PUT') {
        if (this.topics.has(name)) return exists;
        this.topics.add(name);
        return { body: { name } };
      }
      // as Google maps them: getIamPolicy is GET (empty body, options as query), setIamPolicy is POST {policy}
      if (verb === ':getIamPolicy' && r.method === 'GET') {
        if (r.body) return { status: 400, body: { error: { code: 400, message: 'The request body must be empty.', status: 'INVALID_ARGUMENT' } } };
        return { body: this.policies.get(name) ?? { version: 1, etag: 'ACAB' } };
      }
      if (verb === ':setIamPolicy' && r.method === 'POST') {
        const current = this.policies.get(name)?.etag ?? 'ACAB';
        if (r.json.policy.etag !== undefined && r.json.policy.etag !== current) {
          return { status: 409, body: { error: { code: 409, message: 'There were concurrent policy changes.', status: 'ABORTED' } } };
        }
        this.policies.set(name, { ...r.json.policy, etag: `${current}+` });
        return { body: this.policies.get(name) };
      }
      if (verb) return { status: 404, body: { error: { code: 404, message: `no ${r.method} ${verb}`, status: 'NOT_FOUND' } } };
    }
    if (kind === 'subscriptions') {
      const notFound = { status: 404, body: { error: { code: 404, message: `Resource not found (resource=${name.split('/').at(-1)}).`, status: 'NOT_FOUND' } } };
      if (r.method === 'PUT') {
        if (this.subscriptions.has(name)) return exists;
        if (!this.topics.has(r.json.topic)) return { status: 404, body: { error: { code: 404, message: 'Topic not found', status: 'NOT_FOUND' } } };
        // no expirationPolicy: Pub/Sub applies its default, a ttl of 31 days ("2678400s")
        const expirationPolicy = r.json.expirationPolicy ?? { ttl: '2678400s' };
        this.subscriptions.set(name, { topic: r.json.topic, pushConfig: r.json.pushConfig, expirationPolicy });
        return { body: { name, ...this.subscriptions.get(name) } };
      }
      const sub = this.subscriptions.get(name);
      if (!sub) return notFound;
      if (r.method === 'GET') return { body: { name, ...sub } };
      if (r.method === 'PATCH') {
        const mask = String(r.json.updateMask ?? '').split(',').filter(Boolean);
        if (!mask.length) return { status: 400, body: { error: { code: 400, message: 'The update_mask in the UpdateSubscriptionRequest must be set, and must be non-empty.', status: 'INVALID_ARGUMENT' } } };
        if (mask.includes('pushConfig')) sub.pushConfig = r.json.subscription.pushConfig;
        if (mask.includes('expirationPolicy')) sub.expirationPolicy = r.json.subscription.expirationPolicy ?? { ttl: '2678400s' };
        return { body: { name, ...sub } };
      }
    }
    return { status: 400, body: { error: { code: 400, message: 'unexpected call', status: 'INVALID_ARGUMENT' } } };
  }

  private gmail(r: RecordedRequest, rest: string) {
    if (rest !== 'watch' && r.method !== 'GET') return { status: 404, body: { error: { code: 404, message: `no ${r.method} ${rest}`, status: 'NOT_FOUND' } } };
    if (rest === 'watch' && r.method === 'POST') return { body: { historyId: String(this.historyId), expiration: String(Date.now() + 7 * 86400_000) } };
    if (rest === 'profile') return { body: { emailAddress: 'me@example.com', historyId: String(this.historyId) } };
    if (rest === 'history') {
      const start = Number(r.query.startHistoryId);
      if (start < this.staleBefore) return { status: 404, body: { error: { code: 404, message: 'Requested entity was not found.', status: 'NOT_FOUND' } } };
      const entries = this.history.filter((h) => Number(h.id) > start && h.labels.includes(r.query.labelId ?? 'INBOX'));
      const offset = Number(r.query.pageToken ?? 0);
      const page = entries.slice(offset, offset + this.pageSize);
      return {
        body: {
          history: page.map((h) => ({ id: h.id, messagesAdded: [{ message: { id: h.messageId, threadId: `thread-${h.messageId}`, labelIds: h.labels } }] })),
          historyId: String(this.historyId),
          ...(offset + this.pageSize < entries.length ? { nextPageToken: String(offset + this.pageSize) } : {}),
        },
      };
    }
    if (rest === 'messages') {
      const list = [...this.messages.values()].filter((m) => (m.labelIds as string[]).includes(r.query.labelIds ?? 'INBOX')).reverse();
      return { body: { messages: list.slice(0, Number(r.query.maxResults ?? 100)).map((m) => ({ id: m.id, threadId: m.threadId })), resultSizeEstimate: list.length } };
    }
    const attachment = /^messages\/([^/]+)\/attachments\/([^/]+)$/.exec(rest);
    if (attachment) {
      const data = this.attachments.get(`${decodeURIComponent(attachment[1]!)}/${decodeURIComponent(attachment[2]!)}`);
      return data ? { body: { size: Buffer.from(data, 'base64url').length, data } } : { status: 404, body: { error: { code: 404, message: 'Requested entity was not found.', status: 'NOT_FOUND' } } };
    }
    const message = /^messages\/([^/]+)$/.exec(rest);
    if (message) {
      const found = this.messages.get(decodeURIComponent(message[1]!));
      return found ? { body: found } : { status: 404, body: { error: { code: 404, message: 'Requested entity was not found.', status: 'NOT_FOUND' } } };
    }
    return { status: 404, body: { error: { code: 404, message: 'no such Gmail call', status: 'NOT_FOUND' } } };
  }
}

/** A Pub/Sub push envelope as Google sends it. */
export function pushEnvelope(emailAddress: string, historyId: string | number, messageId = String(Math.random())) {
  return {
    message: { data: Buffer.from(JSON.stringify({ emailAddress, historyId: Number(historyId) })).toString('base64'), messageId, publishTime: new Date().toISOString() },
    subscription: 'projects/proj/subscriptions/gog-gmail-watch-push',
  };
}
