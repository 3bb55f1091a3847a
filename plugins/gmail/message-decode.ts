import { convert } from 'html-to-text';
import type { GmailMessage, GmailMessagePart } from './gmail-api.js';
import { charsetOf, decodeBytes, decodeHeaderValue } from './mime-text.js';

/** One message as the watcher posts it to the hook. */
export interface MailSummary {
  id: string;
  threadId: string;
  from: string;
  to: string;
  subject: string;
  date: string;
  snippet: string;
  body: string;
  bodyTruncated: boolean;
  labels: string[];
}

function rawHeader(part: GmailMessagePart | undefined, name: string): string | undefined {
  const wanted = name.toLowerCase();
  return part?.headers?.find((h) => h.name.toLowerCase() === wanted)?.value;
}

function header(part: GmailMessagePart | undefined, name: string): string {
  return decodeHeaderValue(rawHeader(part, name) ?? '');
}

/** Gmail's body data is base64url bytes in the part's charset. */
function decodeData(part: GmailMessagePart): string {
  const data = part.body?.data;
  return data ? decodeBytes(Buffer.from(data, 'base64url'), charsetOf(rawHeader(part, 'Content-Type'))) : '';
}

/** Walks the MIME tree, skipping attachments, and returns the first part of each text type. */
function findText(part: GmailMessagePart | undefined, found: { plain?: string; html?: string } = {}): { plain?: string; html?: string } {
  if (!part) return found;
  const isAttachment = Boolean(part.filename) || Boolean(part.body?.attachmentId);
  const type = (part.mimeType ?? '').toLowerCase();
  if (!isAttachment && type === 'text/plain' && found.plain === undefined) found.plain = decodeData(part);
  if (!isAttachment && type === 'text/html' && found.html === undefined) found.html = decodeData(part);
  for (const child of part.parts ?? []) findText(child, found);
  return found;
}

/** Cuts UTF-8 text to at most `maxBytes` bytes without splitting a character. */
export function cutToBytes(text: string, maxBytes: number): { text: string; truncated: boolean } {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= maxBytes) return { text, truncated: false };
  let end = maxBytes;
  // step back over continuation bytes (10xxxxxx) so no character is split
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--;
  return { text: bytes.subarray(0, end).toString('utf8'), truncated: true };
}

/** The text body: text/plain preferred, else HTML converted to text. */
export function messageText(message: GmailMessage): string {
  const { plain, html } = findText(message.payload);
  if (plain !== undefined && plain.trim()) return plain;
  if (html !== undefined) return convert(html, { wordwrap: false, selectors: [{ selector: 'img', format: 'skip' }] });
  return plain ?? '';
}

export function summarizeMessage(message: GmailMessage, options: { includeBody: boolean; maxBytes: number }): MailSummary {
  const cut = options.includeBody ? cutToBytes(messageText(message), options.maxBytes) : { text: '', truncated: false };
  return {
    id: message.id,
    threadId: message.threadId ?? '',
    from: header(message.payload, 'From'),
    to: header(message.payload, 'To'),
    subject: header(message.payload, 'Subject'),
    date: header(message.payload, 'Date'),
    snippet: message.snippet ?? '',
    body: cut.text,
    bodyTruncated: cut.truncated,
    labels: message.labelIds ?? [],
  };
}

/** Sent and draft messages are the user's own: never reported. */
export function isOwnMessage(message: GmailMessage): boolean {
  return (message.labelIds ?? []).some((l) => l === 'SENT' || l === 'DRAFT');
}
