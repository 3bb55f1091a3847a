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
}

/**
 * A fake of Google's token, Pub/Sub and Gmail REST APIs on 127.0.0.1: one server (the three
 * endpoints point at it), in-memory topics, policies, subscriptions and a mailbox with history.
 */
export class FakeGoogle {
  server!: FakeServer;
  topics = new Set<string>();
  policies = new Map<string, { bindings: { role: string; members: string[] }[]; etag: string }>();
  subscriptions = new Map<string, { topic: string; pushConfig: { pushEndpoint: string } }>();
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

  /** a new message in the mailbox; returns the mailbox history id after it */
  addMail(mail: FakeMail): string {
    this.historyId += 1;
    const labels = mail.labels ?? ['INBOX', 'UNREAD'];
    const enc = (s: string) => Buffer.from(s, 'utf8').toString('base64url');
    const parts = [
      ...(mail.text !== undefined ? [{ partId: '0', mimeType: 'text/plain', headers: [], body: { size: mail.text.length, data: enc(mail.text) } }] : []),
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
      if (r.method === 'PUT') {
        if (this.subscriptions.has(name)) return exists;
        if (!this.topics.has(r.json.topic)) return { status: 404, body: { error: { code: 404, message: 'Topic not found', status: 'NOT_FOUND' } } };
        this.subscriptions.set(name, { topic: r.json.topic, pushConfig: r.json.pushConfig });
        return { body: { name, ...r.json } };
      }
      if (r.method === 'GET') return { body: { name, ...this.subscriptions.get(name) } };
      if (r.method === 'PATCH') {
        const sub = this.subscriptions.get(name)!;
        sub.pushConfig = r.json.subscription.pushConfig;
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
