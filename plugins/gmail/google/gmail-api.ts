import { googleRequest, joinUrl, type AccessTokenSource } from './google-api.js';

export interface GmailMessagePart {
  partId?: string;
  mimeType?: string;
  filename?: string;
  headers?: { name: string; value: string }[];
  body?: { size?: number; data?: string; attachmentId?: string };
  parts?: GmailMessagePart[];
}

export interface GmailMessage {
  id: string;
  threadId?: string;
  labelIds?: string[];
  snippet?: string;
  historyId?: string;
  internalDate?: string;
  payload?: GmailMessagePart;
}

export interface HistoryPage {
  history?: { id?: string; messagesAdded?: { message: { id: string; threadId?: string; labelIds?: string[] } }[] }[];
  nextPageToken?: string;
  historyId?: string;
}

/** The Gmail REST calls herald makes (users/me is the account the refresh token belongs to). */
export class GmailApi {
  constructor(
    private readonly base: string,
    private readonly token: AccessTokenSource,
  ) {}

  async watch(topicName: string, label: string): Promise<{ historyId: string; expiration?: string }> {
    const { body } = await googleRequest<{ historyId: string | number; expiration?: string | number }>(this.token, {
      step: `start the Gmail watch on ${label}`,
      method: 'POST',
      url: this.url('/watch'),
      body: { topicName, labelIds: [label], labelFilterBehavior: 'include' },
    });
    return { historyId: String(body.historyId), expiration: body.expiration === undefined ? undefined : String(body.expiration) };
  }

  /** One page of history; 404 (returned, not thrown) means the start id is too old. */
  async historyPage(startHistoryId: string, label: string, pageToken?: string): Promise<{ status: number; body: HistoryPage }> {
    const query = new URLSearchParams({ startHistoryId, historyTypes: 'messageAdded', labelId: label });
    if (pageToken) query.set('pageToken', pageToken);
    return googleRequest<HistoryPage>(this.token, { step: 'read the mailbox history', url: this.url(`/history?${query}`), accept: [404] });
  }

  async message(id: string): Promise<GmailMessage> {
    const { body } = await googleRequest<GmailMessage>(this.token, { step: `read message ${id}`, url: this.url(`/messages/${encodeURIComponent(id)}?format=full`) });
    return body;
  }

  /**
   * A body Gmail keeps out of the message (`body.attachmentId`, large text parts):
   * users.messages.attachments.get answers `{size, data}` with data in base64url
   * (https://developers.google.com/gmail/api/reference/rest/v1/users.messages.attachments/get).
   */
  async attachment(messageId: string, attachmentId: string): Promise<{ size?: number; data?: string }> {
    const { body } = await googleRequest<{ size?: number; data?: string }>(this.token, {
      step: `read a body part of message ${messageId}`,
      url: this.url(`/messages/${encodeURIComponent(messageId)}/attachments/${encodeURIComponent(attachmentId)}`),
    });
    return body;
  }

  /** The newest messages of a label: the recovery when history is no longer available. */
  async recentMessages(label: string, maxResults: number): Promise<{ id: string; threadId?: string }[]> {
    const query = new URLSearchParams({ labelIds: label, maxResults: String(maxResults) });
    const { body } = await googleRequest<{ messages?: { id: string; threadId?: string }[] }>(this.token, {
      step: 'list recent messages',
      url: this.url(`/messages?${query}`),
    });
    return body.messages ?? [];
  }

  async profile(): Promise<{ emailAddress?: string; historyId: string }> {
    const { body } = await googleRequest<{ emailAddress?: string; historyId: string | number }>(this.token, { step: 'read the mailbox profile', url: this.url('/profile') });
    return { emailAddress: body.emailAddress, historyId: String(body.historyId) };
  }

  private url(path: string): string {
    return joinUrl(this.base, `/gmail/v1/users/me${path}`);
  }
}
