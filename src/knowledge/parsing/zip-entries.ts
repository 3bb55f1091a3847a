import { createInflateRaw } from 'node:zlib';
import { HeraldError } from '../../errors.js';
import { documentLimitErrors } from './document-limits.js';

/** what reading an archive will take: the elements of its XML parts */
export interface ZipSurvey {
  xmlElements: number;
}

/**
 * Surveys an archive (a DOCX is a ZIP) before a parser opens it, refusing one any of whose
 * entries inflates past `maxEntryBytes`. Sizes written in the archive are not trusted: every
 * deflated entry is inflated here as a stream, counted and dropped chunk by chunk, so neither a
 * bomb nor a large honest entry is ever held whole. The elements of the XML parts are counted on
 * the way, since a DOM parser's memory follows them. Reads the central directory
 * (APPNOTE.TXT 4.3.12, 4.3.16).
 */
export async function surveyZip(bytes: Uint8Array, maxEntryBytes: number): Promise<ZipSurvey> {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const end = findEndOfCentralDirectory(buf);
  if (end < 0) throw unreadable('no ZIP directory');
  const count = buf.readUInt16LE(end + 10);
  let offset = buf.readUInt32LE(end + 16);
  let xmlElements = 0;
  for (let i = 0; i < count; i++) {
    if (offset + 46 > buf.length || buf.readUInt32LE(offset) !== 0x02014b50) throw unreadable('a broken ZIP directory');
    const method = buf.readUInt16LE(offset + 10);
    const compressed = buf.readUInt32LE(offset + 20);
    const declared = buf.readUInt32LE(offset + 24);
    const nameLength = buf.readUInt16LE(offset + 28);
    const name = buf.toString('utf8', offset + 46, offset + 46 + nameLength);
    const local = buf.readUInt32LE(offset + 42);
    offset += 46 + nameLength + buf.readUInt16LE(offset + 30) + buf.readUInt16LE(offset + 32);
    if (declared > maxEntryBytes) throw documentLimitErrors.inflatedEntry(maxEntryBytes);
    if (local + 30 > buf.length || buf.readUInt32LE(local) !== 0x04034b50) throw unreadable('a broken ZIP entry');
    const start = local + 30 + buf.readUInt16LE(local + 26) + buf.readUInt16LE(local + 28);
    const data = buf.subarray(start, start + compressed);
    const counter = /\.(xml|rels)$/i.test(name) ? new ElementCounter() : undefined;
    if (method === 0) {
      if (data.length > maxEntryBytes) throw documentLimitErrors.inflatedEntry(maxEntryBytes);
      counter?.add(data);
    } else if (method === 8) await inflateCounted(data, maxEntryBytes, counter);
    else throw unreadable(`a ZIP entry compressed with method ${method}`);
    xmlElements += counter?.elements ?? 0;
  }
  return { xmlElements };
}

async function inflateCounted(data: Buffer, maxEntryBytes: number, counter?: ElementCounter): Promise<void> {
  const inflate = createInflateRaw({ chunkSize: 64 * 1024 });
  inflate.end(data);
  let size = 0;
  try {
    for await (const chunk of inflate as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > maxEntryBytes) {
        inflate.destroy();
        throw documentLimitErrors.inflatedEntry(maxEntryBytes);
      }
      counter?.add(chunk);
    }
  } catch (error) {
    if (error instanceof HeraldError) throw error;
    throw unreadable('a ZIP entry that does not inflate');
  }
}

/** the start tags of markup (XML or HTML) in UTF-8 bytes */
export function countStartTags(bytes: Uint8Array): number {
  const counter = new ElementCounter();
  counter.add(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  return counter.elements;
}

/**
 * Counts start tags (`<` followed by a letter: not `</`, `<?`, `<!`, nor a `<` in HTML text)
 * across chunks: a scan, not a parse (WordprocessingML escapes text and holds no CDATA).
 */
class ElementCounter {
  elements = 0;
  private pendingLt = false;

  add(chunk: Buffer): void {
    if (!chunk.length) return;
    if (this.pendingLt && startsName(chunk[0]!)) this.elements++;
    this.pendingLt = false;
    for (let i = chunk.indexOf(0x3c); i >= 0; i = chunk.indexOf(0x3c, i + 1)) {
      if (i + 1 === chunk.length) this.pendingLt = true;
      else if (startsName(chunk[i + 1]!)) this.elements++;
    }
  }
}

// an ASCII letter or `_`: how element names begin in XML documents and HTML
const startsName = (byte: number) => (byte >= 0x41 && byte <= 0x5a) || (byte >= 0x61 && byte <= 0x7a) || byte === 0x5f;

function findEndOfCentralDirectory(buf: Buffer): number {
  // the record is 22 bytes plus a comment of at most 65535
  for (let i = buf.length - 22; i >= Math.max(0, buf.length - 22 - 65535); i--) if (buf.readUInt32LE(i) === 0x06054b50) return i;
  return -1;
}

const unreadable = (what: string) => new HeraldError('HERALD_INVALID_FIELD', `could not read the DOCX file: ${what}`, { param: 'file' });
