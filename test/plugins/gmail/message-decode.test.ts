import { describe, expect, it } from 'vitest';
import { cutToBytes, messageText, summarizeMessage } from '../../../plugins/gmail/message-decode.js';
import { parsePushEnvelope } from '../../../plugins/gmail/push-endpoint.js';

const b64 = (s: string) => Buffer.from(s).toString('base64url');

describe('gmail message decoding', () => {
  it('prefers text/plain inside nested multiparts and skips attachments', () => {
    const message = {
      id: 'm',
      payload: {
        mimeType: 'multipart/mixed',
        headers: [{ name: 'subject', value: 'Hi' }],
        parts: [
          { mimeType: 'text/plain', filename: 'notes.txt', body: { attachmentId: 'a' } },
          { mimeType: 'multipart/alternative', parts: [{ mimeType: 'text/html', body: { data: b64('<p>html</p>') } }, { mimeType: 'text/plain', body: { data: b64('plain ünïcode') } }] },
        ],
      },
    };
    expect(messageText(message)).toBe('plain ünïcode');
    expect(summarizeMessage(message, { includeBody: true, maxBytes: 100 }).subject).toBe('Hi');
    expect(summarizeMessage(message, { includeBody: false, maxBytes: 100 }).body).toBe('');
  });

  it('converts HTML when there is no plain part', () => {
    expect(messageText({ id: 'm', payload: { mimeType: 'text/html', body: { data: b64('<h1>Title</h1><p>a &amp; b</p>') } } })).toMatch(/TITLE[\s\S]*a & b/);
  });

  it('cuts at a byte limit without splitting a character', () => {
    expect(cutToBytes('ééé', 3)).toEqual({ text: 'é', truncated: true });
    expect(cutToBytes('abc', 3)).toEqual({ text: 'abc', truncated: false });
  });

  it('parses Pub/Sub envelopes and refuses malformed ones', () => {
    const data = Buffer.from(JSON.stringify({ emailAddress: 'a@b.c', historyId: 123 })).toString('base64');
    expect(parsePushEnvelope(JSON.stringify({ message: { data } }))).toEqual({ emailAddress: 'a@b.c', historyId: '123' });
    expect(parsePushEnvelope('{')).toBeUndefined();
    expect(parsePushEnvelope(JSON.stringify({ message: { data: Buffer.from('{"emailAddress":"a"}').toString('base64') } }))).toBeUndefined();
  });
});
