/**
 * Text of mail as people wrote it. Gmail hands over part bodies as base64url bytes in the
 * part's own charset, and a header may still hold RFC 2047 encoded-words (`=?UTF-8?B?...?=`);
 * both are decoded here. An unknown charset falls back to UTF-8 rather than failing a message.
 */
export function decodeBytes(bytes: Uint8Array, charset: string | undefined): string {
  const label = (charset ?? 'utf-8').trim().replace(/^"|"$/g, '').toLowerCase() || 'utf-8';
  try {
    return new TextDecoder(label).decode(bytes);
  } catch {
    return new TextDecoder('utf-8').decode(bytes);
  }
}

/** the charset parameter of a Content-Type value */
export function charsetOf(contentType: string | undefined): string | undefined {
  return /;\s*charset\s*=\s*("?)([^";\s]+)\1/i.exec(contentType ?? '')?.[2];
}

const ENCODED_WORD = /=\?([^?\s]+)\?([bBqQ])\?([^?\s]*)\?=/g;

/** RFC 2047: encoded-words decoded; whitespace between two adjacent encoded-words dropped. */
export function decodeHeaderValue(value: string): string {
  if (!value.includes('=?')) return value;
  return value.replace(/(=\?[^?\s]+\?[bBqQ]\?[^?\s]*\?=)\s+(?==\?[^?\s]+\?[bBqQ]\?[^?\s]*\?=)/g, '$1').replace(ENCODED_WORD, (word, charset: string, encoding: string, text: string) => {
    const bytes =
      encoding.toUpperCase() === 'B'
        ? Buffer.from(text, 'base64')
        : Buffer.from(text.replace(/_/g, ' ').replace(/=([0-9A-Fa-f]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16))), 'latin1');
    // RFC 2231 language suffix: UTF-8*en
    return decodeBytes(bytes, charset.split('*')[0]);
  });
}
