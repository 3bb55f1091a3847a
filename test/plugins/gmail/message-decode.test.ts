import { describe, expect, it } from 'vitest';
import { cutToBytes, messageText, summarizeMessage } from '../../../plugins/gmail/watcher/message-decode.js';
import { parsePushEnvelope } from '../../../plugins/gmail/watcher/push-endpoint.js';

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

  it('decodes bodies in their declared charset and RFC 2047 encoded-word headers', () => {
    const latin1 = Buffer.from('Café à côté', 'latin1').toString('base64url');
    const message = {
      id: 'm',
      payload: {
        mimeType: 'text/plain',
        headers: [
          { name: 'Content-Type', value: 'text/plain; charset="ISO-8859-1"' },
          { name: 'Subject', value: '=?UTF-8?B?UmVjaG51bmcgZsO8ciA=?= =?ISO-8859-1?Q?M=E4rz_2024?=' },
          { name: 'From', value: '=?utf-8?q?J=C3=BCrgen?= <j@example.com>' },
        ],
        body: { data: latin1 },
      },
    };
    const summary = summarizeMessage(message, { includeBody: true, maxBytes: 100 });
    expect(summary.body).toBe('Café à côté');
    // the space between two encoded-words is not text (RFC 2047 6.2): the one inside the first is
    expect(summary.subject).toBe('Rechnung für März 2024');
    expect(summary.from).toBe('Jürgen <j@example.com>');
    // an unknown charset falls back to UTF-8; plain headers stay as they are
    expect(messageText({ id: 'x', payload: { mimeType: 'text/plain', headers: [{ name: 'Content-Type', value: 'text/plain; charset=x-nonsense' }], body: { data: b64('ok ü') } } })).toBe('ok ü');
  });

  it('cuts at a byte limit without splitting a character', () => {
    expect(cutToBytes('ééé', 3)).toEqual({ text: 'é', truncated: true });
    expect(cutToBytes('abc', 3)).toEqual({ text: 'abc', truncated: false });
  });

  it('parses Pub/Sub envelopes and refuses malformed ones', () => {
    const data = Buffer.from(JSON.stringify({ emailAddress: 'a@b.c', historyId: 123 })).toString('base64');
    expect(parsePushEnvelope(JSON.stringify({ message: { data } }))).toEqual({ emailAddress: 'a@b.c', historyId: '123' });
    // a full envelope as Pub/Sub sends it, and an unwrapped one (subscription with noWrapper)
    const full = { message: { attributes: {}, data, messageId: '2070443601311540', message_id: '2070443601311540', publishTime: '2021-02-26T19:13:55.749Z' }, subscription: 'projects/p/subscriptions/s' };
    expect(parsePushEnvelope(JSON.stringify(full))).toEqual({ emailAddress: 'a@b.c', historyId: '123' });
    expect(parsePushEnvelope(JSON.stringify({ emailAddress: 'a@b.c', historyId: '18446744073709551615' }))).toEqual({ emailAddress: 'a@b.c', historyId: '18446744073709551615' });
    expect(parsePushEnvelope('null')).toBeUndefined();
    expect(parsePushEnvelope('[]')).toBeUndefined();
    expect(parsePushEnvelope('{')).toBeUndefined();
    expect(parsePushEnvelope(JSON.stringify({ message: { data: Buffer.from('{"emailAddress":"a"}').toString('base64') } }))).toBeUndefined();
  });
});
