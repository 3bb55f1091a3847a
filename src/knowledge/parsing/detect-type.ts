import { csvRows } from './csv-rows.js';

/** The document types herald can read, by what their bytes are (the filename only breaks ties among texts). */
export const documentTypes = {
  txt: 'text/plain',
  md: 'text/markdown',
  html: 'text/html',
  csv: 'text/csv',
  json: 'application/json',
  pdf: 'application/pdf',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
} as const;

export type DocumentType = keyof typeof documentTypes;

export type Detection = { ok: true; type: DocumentType; text?: string } | { ok: false; reason: string };

const extensionOf = (filename: string) => /\.([A-Za-z0-9]+)$/.exec(filename)?.[1]?.toLowerCase() ?? '';

// magic numbers of common binaries that are not documents we read
const binaryMagic: [string, number[]][] = [
  ['PNG image', [0x89, 0x50, 0x4e, 0x47]],
  ['JPEG image', [0xff, 0xd8, 0xff]],
  ['GIF image', [0x47, 0x49, 0x46, 0x38]],
  ['gzip archive', [0x1f, 0x8b]],
  ['ELF executable', [0x7f, 0x45, 0x4c, 0x46]],
  ['Windows executable', [0x4d, 0x5a]],
  ['legacy Office document', [0xd0, 0xcf, 0x11, 0xe0]],
];

const startsWith = (bytes: Uint8Array, magic: number[]) => magic.every((b, i) => bytes[i] === b);

/**
 * Decides a document's type from its content: PDF and DOCX by their signatures (a ZIP is a DOCX
 * only when it holds `word/document.xml`), texts when they are valid UTF-8 without NUL bytes.
 * A name that promises a PDF or DOCX the content is not is refused rather than read as text.
 */
export function detectType(bytes: Uint8Array, filename: string): Detection {
  const ext = extensionOf(filename);
  if (startsWith(bytes, [0x25, 0x50, 0x44, 0x46, 0x2d])) return { ok: true, type: 'pdf' };
  if (startsWith(bytes, [0x50, 0x4b, 0x03, 0x04])) {
    // ZIP entry names are stored uncompressed, so the DOCX main part is findable by bytes
    if (Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).includes('word/document.xml')) return { ok: true, type: 'docx' };
    return { ok: false, reason: 'a ZIP archive that is not a DOCX document' };
  }
  for (const [name, magic] of binaryMagic) if (startsWith(bytes, magic)) return { ok: false, reason: `a ${name}` };
  if (ext === 'pdf' || ext === 'docx') return { ok: false, reason: `named .${ext} but its content is not a ${ext.toUpperCase()}` };

  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return { ok: false, reason: 'binary content (not UTF-8 text, PDF or DOCX)' };
  }
  if (text.includes('\u0000')) return { ok: false, reason: 'binary content (NUL bytes)' };
  text = text.replace(/^\uFEFF/, '');
  return { ok: true, type: textType(text, ext), text };
}

function textType(text: string, ext: string): DocumentType {
  const head = text.trimStart().slice(0, 1000);
  if (/^[[{]/.test(head) && isJson(text)) return 'json';
  if (/^(<!doctype html|<html[\s>]|<head[\s>]|<body[\s>])/i.test(head) || (['html', 'htm'].includes(ext) && /<[a-z][^>]*>/i.test(head))) return 'html';
  if (ext === 'csv' || ext === 'tsv') return 'csv';
  if (['md', 'markdown', 'mdx'].includes(ext)) return 'md';
  if (!['jsonl', 'ndjson', 'log'].includes(ext) && looksLikeCsv(text)) return 'csv';
  if (/^#{1,6} \S/m.test(head)) return 'md';
  return 'txt';
}

/**
 * A table whatever its name: a header of short, non-empty names and at least two rows, every
 * sampled row with the header's number (at least two) of comma- or tab-separated fields.
 */
function looksLikeCsv(text: string): boolean {
  const sample = text.length > 8192 ? text.slice(0, text.lastIndexOf('\n', 8192) + 1 || 8192) : text;
  const rows = csvRows(sample).slice(0, 20);
  const width = rows[0]?.length ?? 0;
  if (rows.length < 3 || width < 2) return false;
  // JSON lines and markup split on commas too, but their "headers" start with a bracket
  return rows.every((r) => r.length === width) && rows[0]!.every((h) => h.trim() !== '' && h.length <= 64 && !/[.!?]$/.test(h.trim()) && !/^\s*[[{<]/.test(h));
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
