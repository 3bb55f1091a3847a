import type { ChannelMessage, ChannelSendResult } from './sdk.js';

/**
 * What a platform counts: UTF-16 code units (JavaScript's `length`: Telegram, Discord, Slack...)
 * or code points (Go's runes: Mattermost counts `utf8.RuneCountInString`).
 */
export type LengthUnit = 'utf16' | 'codepoints';

function sizeOf(text: string, unit: LengthUnit): number {
  if (unit === 'utf16') return text.length;
  let count = 0;
  for (const _ of text) count++;
  return count;
}

/** the UTF-16 length of the first `limit` units of `text` */
function spanOf(text: string, limit: number, unit: LengthUnit): number {
  if (unit === 'utf16') return limit;
  let span = 0;
  let count = 0;
  for (const char of text) {
    if (count++ === limit) break;
    span += char.length;
  }
  return span;
}

/**
 * Splits text into parts of at most `limit` units, cutting at the last paragraph break
 * before the limit, else the last line break, else the last space, and only as a last resort
 * inside a word. Parts are trimmed of the whitespace at the cut; empty parts are dropped.
 */
export function splitMessage(text: string, limit: number, unit: LengthUnit = 'utf16'): string[] {
  if (!Number.isFinite(limit) || sizeOf(text, unit) <= limit) return [text];
  const parts: string[] = [];
  let rest = text;
  while (sizeOf(rest, unit) > limit) {
    const span = spanOf(rest, limit, unit);
    const window = rest.slice(0, span + 1);
    const cut = lastBreak(window, '\n\n') ?? lastBreak(window, '\n') ?? lastBreak(window, ' ') ?? hardCut(rest, span);
    const head = rest.slice(0, cut).trimEnd();
    if (head) parts.push(head);
    rest = rest.slice(cut).replace(/^\s+/, '');
  }
  if (rest) parts.push(rest);
  return parts;
}

/** a cut inside a word at `limit`, moved back one so it never halves a surrogate pair (an emoji) */
function hardCut(text: string, limit: number): number {
  const code = text.charCodeAt(limit - 1);
  return code >= 0xd800 && code <= 0xdbff && limit > 1 ? limit - 1 : limit;
}

/** the last position of `separator` in `window` that leaves a non-empty head; undefined if none */
function lastBreak(window: string, separator: string): number | undefined {
  const at = window.lastIndexOf(separator);
  return at > 0 ? at : undefined;
}

/** The idempotency key of one part: the delivery id itself for a single part, `<id>-<n>` otherwise. */
export function partKey(deliveryId: string, index: number, count: number): string {
  return count === 1 ? deliveryId : `${deliveryId}-${index + 1}`;
}

/**
 * Sends a message in parts of at most `limit` characters, one request per part, in order.
 * Skips the parts an earlier attempt delivered (`message.partsSent`) and reports each part
 * accepted (`message.onPartSent`), so a retry after a failure on part 3 resumes at part 3.
 */
export async function sendInParts(
  message: ChannelMessage,
  limit: number,
  sendPart: (part: { text: string; index: number; count: number; key: string }) => Promise<string | undefined>,
  unit: LengthUnit = 'utf16',
): Promise<ChannelSendResult> {
  const parts = splitMessage(message.text, limit, unit);
  const messageIds: string[] = [];
  for (let index = message.partsSent ?? 0; index < parts.length; index++) {
    const id = await sendPart({ text: parts[index]!, index, count: parts.length, key: partKey(message.deliveryId, index, parts.length) });
    if (id !== undefined) messageIds.push(id);
    await message.onPartSent?.(index, id);
  }
  return { messageIds };
}
