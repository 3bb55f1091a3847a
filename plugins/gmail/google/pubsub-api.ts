import { googleRequest, joinUrl, GoogleApiError, type AccessTokenSource } from './google-api.js';

/** Gmail publishes its notifications as this service account; it needs roles/pubsub.publisher on the topic. */
export const GMAIL_PUSH_MEMBER = 'serviceAccount:gmail-api-push@system.gserviceaccount.com';
export const PUBLISHER_ROLE = 'roles/pubsub.publisher';

interface IamPolicy {
  bindings?: { role: string; members?: string[]; condition?: unknown }[];
  etag?: string;
  version?: number;
}

/** https://cloud.google.com/pubsub/docs/reference/rest/v1/projects.subscriptions#PushConfig */
export interface PushConfig {
  pushEndpoint: string;
  /** authenticated push: Pub/Sub sends `Authorization: Bearer <OIDC token>` signed as this service account */
  oidcToken?: { serviceAccountEmail: string; audience?: string };
}

interface Subscription {
  topic?: string;
  pushConfig?: PushConfig;
  expirationPolicy?: { ttl?: string };
}

/**
 * `expirationPolicy: {}`: "If expirationPolicy is not set, a default policy with ttl of 31 days will
 * be used ... If it is set but ttl is not set, the subscription never expires"
 * (https://cloud.google.com/pubsub/docs/reference/rest/v1/projects.subscriptions#ExpirationPolicy).
 * A quiet mailbox sends no pushes for weeks; a subscription that expired would lose every later mail.
 */
const NEVER_EXPIRE = {};

/** The Pub/Sub steps of setup; each returns what it did, in words a user reads. */
export class PubSubApi {
  constructor(
    private readonly base: string,
    private readonly token: AccessTokenSource,
  ) {}

  /** PUT the topic; 409 means it exists already, which is fine. */
  async ensureTopic(topic: string): Promise<'created' | 'exists'> {
    const { status } = await googleRequest(this.token, { step: `create topic ${topic}`, method: 'PUT', url: this.url(topic), body: {}, accept: [409] });
    return status === 409 ? 'exists' : 'created';
  }

  /** Adds roles/pubsub.publisher for Gmail's push account unless the policy already has it. */
  async ensureGmailPublisher(topic: string): Promise<'added' | 'present'> {
    const step = `grant ${PUBLISHER_ROLE} on ${topic} to gmail-api-push`;
    // getIamPolicy is a GET with an empty body; version 3 so a policy with conditional bindings is read whole
    const { body: policy } = await googleRequest<IamPolicy>(this.token, { step, url: this.url(`${topic}:getIamPolicy?options.requestedPolicyVersion=3`) });
    const bindings = policy.bindings ?? [];
    // a conditional binding grants only under its condition (a time window, a resource name):
    // Gmail's account must be in an unconditional one, never appended to a conditional one
    const binding = bindings.find((b) => b.role === PUBLISHER_ROLE && b.condition === undefined);
    if (binding?.members?.includes(GMAIL_PUSH_MEMBER)) return 'present';
    const next: IamPolicy = {
      ...policy,
      bindings: binding
        ? bindings.map((b) => (b === binding ? { ...b, members: [...(b.members ?? []), GMAIL_PUSH_MEMBER] } : b))
        : [...bindings, { role: PUBLISHER_ROLE, members: [GMAIL_PUSH_MEMBER] }],
    };
    await googleRequest(this.token, { step, method: 'POST', url: this.url(`${topic}:setIamPolicy`), body: { policy: next } });
    return 'added';
  }

  /** Creates the push subscription (never expiring), or brings an existing one to `pushConfig` and no expiry. */
  async ensurePushSubscription(subscription: string, topic: string, pushConfig: PushConfig): Promise<'created' | 'updated' | 'unchanged'> {
    const step = `create push subscription ${subscription}`;
    const { status } = await googleRequest(this.token, {
      step,
      method: 'PUT',
      url: this.url(subscription),
      body: { topic, pushConfig, ackDeadlineSeconds: 60, expirationPolicy: NEVER_EXPIRE },
      accept: [409],
    });
    if (status !== 409) return 'created';
    const existing = await this.subscription(subscription);
    if (!existing) throw new GoogleApiError(step, 409, 'ALREADY_EXISTS', 'the subscription exists and vanished meanwhile; run setup again');
    if (existing.topic && existing.topic !== topic) {
      throw new GoogleApiError(step, 409, 'ALREADY_EXISTS', `the subscription exists but is attached to ${existing.topic}, not ${topic}`);
    }
    const mask: string[] = [];
    if (!samePushConfig(existing.pushConfig, pushConfig)) mask.push('pushConfig');
    if (existing.expirationPolicy === undefined || existing.expirationPolicy.ttl) mask.push('expirationPolicy');
    if (!mask.length) return 'unchanged';
    await googleRequest(this.token, {
      step: `update ${mask.join(' and ')} of ${subscription}`,
      method: 'PATCH',
      url: this.url(subscription),
      body: { subscription: { pushConfig, expirationPolicy: NEVER_EXPIRE }, updateMask: mask.join(',') },
    });
    return 'updated';
  }

  /** the subscription, or undefined when it does not exist (deleted, or expired under an old policy) */
  async subscription(subscription: string): Promise<Subscription | undefined> {
    const { status, body } = await googleRequest<Subscription>(this.token, { step: `read subscription ${subscription}`, url: this.url(subscription), accept: [404] });
    return status === 404 ? undefined : body;
  }

  private url(resource: string): string {
    // (resource names never need escaping: projects/<id>/topics|subscriptions/<name>)
    return joinUrl(this.base, `/v1/${resource}`);
  }
}

function samePushConfig(a: PushConfig | undefined, b: PushConfig): boolean {
  return (
    a?.pushEndpoint === b.pushEndpoint &&
    a?.oidcToken?.serviceAccountEmail === b.oidcToken?.serviceAccountEmail &&
    (a?.oidcToken?.audience ?? undefined) === (b.oidcToken?.audience ?? undefined)
  );
}
