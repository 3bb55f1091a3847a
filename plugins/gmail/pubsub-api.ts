import { googleRequest, joinUrl, GoogleApiError, type AccessTokenSource } from './google-api.js';

/** Gmail publishes its notifications as this service account; it needs roles/pubsub.publisher on the topic. */
export const GMAIL_PUSH_MEMBER = 'serviceAccount:gmail-api-push@system.gserviceaccount.com';
export const PUBLISHER_ROLE = 'roles/pubsub.publisher';

interface IamPolicy {
  bindings?: { role: string; members?: string[] }[];
  etag?: string;
  version?: number;
}

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
    const binding = bindings.find((b) => b.role === PUBLISHER_ROLE);
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

  /** Creates the push subscription, or points an existing one at `pushEndpoint`. */
  async ensurePushSubscription(subscription: string, topic: string, pushEndpoint: string): Promise<'created' | 'updated' | 'unchanged'> {
    const step = `create push subscription ${subscription}`;
    const { status } = await googleRequest(this.token, {
      step,
      method: 'PUT',
      url: this.url(subscription),
      body: { topic, pushConfig: { pushEndpoint }, ackDeadlineSeconds: 60 },
      accept: [409],
    });
    if (status !== 409) return 'created';
    const { body: existing } = await googleRequest<{ topic?: string; pushConfig?: { pushEndpoint?: string } }>(this.token, {
      step: `read subscription ${subscription}`,
      url: this.url(subscription),
    });
    if (existing.topic && existing.topic !== topic) {
      throw new GoogleApiError(step, 409, 'ALREADY_EXISTS', `the subscription exists but is attached to ${existing.topic}, not ${topic}`);
    }
    if (existing.pushConfig?.pushEndpoint === pushEndpoint) return 'unchanged';
    await googleRequest(this.token, {
      step: `update push endpoint of ${subscription}`,
      method: 'PATCH',
      url: this.url(subscription),
      body: { subscription: { pushConfig: { pushEndpoint } }, updateMask: 'pushConfig' },
    });
    return 'updated';
  }

  private url(resource: string): string {
    return joinUrl(this.base, `/v1/${resource}`);
  }
}
