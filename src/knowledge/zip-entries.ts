import { inflateRawSync } from 'node:zlib';
import { HeraldError } from '../errors.js';
import { documentLimitErrors } from './document-limits.js';

/**
 * Refuses an archive (a DOCX is a ZIP) any of whose entries inflates past `maxEntryBytes`,
 * before a parser inflates it whole. Sizes written in the archive are not trusted: every
 * deflated entry is inflated here with zlib's output cap, which stops at the limit instead of
 * allocating what a bomb asks for. Reads the central directory (APPNOTE.TXT 4.3.12, 4.3.16).
 */
export function checkZipEntries(bytes: Uint8Array, maxEntryBytes: number): void {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const end = findEndOfCentralDirectory(buf);
  if (end < 0) throw unreadable('no ZIP directory');
  const count = buf.readUInt16LE(end + 10);
  let offset = buf.readUInt32LE(end + 16);
  for (let i = 0; i < count; i++) {
    if (offset + 46 > buf.length || buf.readUInt32LE(offset) !== 0x02014b50) throw unreadable('a broken ZIP directory');
    const method = buf.readUInt16LE(offset + 10);
    const compressed = buf.readUInt32LE(offset + 20);
    const declared = buf.readUInt32LE(offset + 24);
    const nameLength = buf.readUInt16LE(offset + 28);
    const local = buf.readUInt32LE(offset + 42);
    offset += 46 + nameLength + buf.readUInt16LE(offset + 30) + buf.readUInt16LE(offset + 32);
    if (declared > maxEntryBytes) throw documentLimitErrors.inflatedEntry(maxEntryBytes);
    if (local + 30 > buf.length || buf.readUInt32LE(local) !== 0x04034b50) throw unreadable('a broken ZIP entry');
    const start = local + 30 + buf.readUInt16LE(local + 26) + buf.readUInt16LE(local + 28);
    const data = buf.subarray(start, start + compressed);
    if (method === 0) {
      if (data.length > maxEntryBytes) throw documentLimitErrors.inflatedEntry(maxEntryBytes);
    } else if (method === 8) {
      try {
        inflateRawSync(data, { maxOutputLength: maxEntryBytes });
      } catch (error) {
        if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') throw documentLimitErrors.inflatedEntry(maxEntryBytes);
        throw unreadable('a ZIP entry that does not inflate');
      }
    } else throw unreadable(`a ZIP entry compressed with method ${method}`);
  }
}

function findEndOfCentralDirectory(buf: Buffer): number {
  // the record is 22 bytes plus a comment of at most 65535
  for (let i = buf.length - 22; i >= Math.max(0, buf.length - 22 - 65535); i--) if (buf.readUInt32LE(i) === 0x06054b50) return i;
  return -1;
}

const unreadable = (what: string) => new HeraldError('HERALD_INVALID_FIELD', `could not read the DOCX file: ${what}`, { param: 'file' });
