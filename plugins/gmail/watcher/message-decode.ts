import { createRequire } from 'node:module';
import type { GmailMessage, GmailMessagePart } from '../google/gmail-api.js';
import { charsetOf, decodeBytes, decodeHeaderValue } from './mime-text.js';

// html-to-text (~10 MB with its HTML parser) is required on the first HTML-only mail, not when
// herald starts with the gmail plugin listed
const requireModule = createRequire(import.meta.url);
const htmlToText = (html: string): string =>
  (requireModule('html-to-text') as typeof import('html-to-text')).convert(html, { wordwrap: false, selectors: [{ selector: 'img', format: 'skip' }] });

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
  // a body part Gmail kept out of the message has an attachmentId but no filename; once fetched it has data
  const isAttachment = Boolean(part.filename) || (Boolean(part.body?.attachmentId) && !part.body?.data);
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
  if (html !== undefined) return htmlToText(html);
  return plain ?? '';
}

/** a detached text body is fetched when its size is at most this many times maxBytes (HTML shrinks to text) */
export const DETACHED_BODY_FACTOR = 4;

function isDetachedText(part: GmailMessagePart): boolean {
  const type = (part.mimeType ?? '').toLowerCase();
  return !part.filename && (type === 'text/plain' || type === 'text/html') && Boolean(part.body?.attachmentId) && !part.body?.data;
}

/**
 * Gmail leaves large text bodies out of `messages.get` and gives them an `attachmentId`
 * (https://developers.google.com/gmail/api/reference/rest/v1/users.messages#MessagePartBody).
 * Fetches each such text part whose size is within `maxBytes × DETACHED_BODY_FACTOR` into the
 * part; a larger one is not downloaded and the body counts as truncated.
 */
export async function fetchDetachedBodies(
  message: GmailMessage,
  fetchPart: (attachmentId: string) => Promise<{ data?: string }>,
  options: { includeBody: boolean; maxBytes: number },
): Promise<{ message: GmailMessage; skipped: boolean }> {
  if (!options.includeBody || !message.payload) return { message, skipped: false };
  let skipped = false;
  const visit = async (part: GmailMessagePart): Promise<GmailMessagePart> => {
    let next = part;
    if (isDetachedText(part)) {
      if ((part.body?.size ?? 0) <= options.maxBytes * DETACHED_BODY_FACTOR) {
        const fetched = await fetchPart(part.body!.attachmentId!);
        next = { ...part, body: { ...part.body, data: fetched.data ?? '' } };
      } else skipped = true;
    }
    if (part.parts) {
      const children: GmailMessagePart[] = [];
      for (const child of part.parts) children.push(await visit(child));
      next = { ...next, parts: children };
    }
    return next;
  };
  return { message: { ...message, payload: await visit(message.payload) }, skipped };
}

export function summarizeMessage(message: GmailMessage, options: { includeBody: boolean; maxBytes: number; bodySkipped?: boolean }): MailSummary {
  const cut = options.includeBody ? cutToBytes(messageText(message), options.maxBytes) : { text: '', truncated: false };
  if (options.bodySkipped) cut.truncated = true;
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
