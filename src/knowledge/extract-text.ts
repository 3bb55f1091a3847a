import { convert as htmlToText } from 'html-to-text';
import mammoth from 'mammoth';
import { extractText as pdfText, getDocumentProxy } from 'unpdf';
import { csvRows } from './csv-rows.js';
import type { DocumentType } from './detect-type.js';

/**
 * The searchable text of a document. Structured formats become lines that carry their own
 * context (a CSV row as `column: value` pairs, JSON as `path: value`), so a chunk cut from
 * the middle still says what its numbers mean.
 */
export async function extractText(type: DocumentType, bytes: Uint8Array, decoded?: string): Promise<string> {
  const text = () => decoded ?? new TextDecoder().decode(bytes);
  switch (type) {
    case 'txt':
    case 'md':
      return text();
    case 'html':
      return htmlToText(text(), {
        wordwrap: false,
        selectors: [
          { selector: 'a', options: { ignoreHref: true } },
          { selector: 'img', format: 'skip' },
        ],
      });
    case 'csv':
      return csvText(text());
    case 'json':
      return jsonLines(JSON.parse(text()), '').join('\n');
    case 'pdf': {
      const pdf = await getDocumentProxy(new Uint8Array(bytes));
      const { text: pages } = await pdfText(pdf, { mergePages: false });
      return (pages as string[]).join('\n\n');
    }
    case 'docx':
      return (await mammoth.extractRawText({ buffer: Buffer.from(bytes) })).value;
  }
}

function csvText(text: string): string {
  const [header, ...rows] = csvRows(text);
  if (!header) return '';
  if (!rows.length) return header.join(', ');
  return rows.map((row) => row.map((value, i) => `${header[i]?.trim() || `column ${i + 1}`}: ${value.trim()}`).join('; ')).join('\n');
}

function jsonLines(value: unknown, path: string): string[] {
  if (Array.isArray(value)) return value.flatMap((v, i) => jsonLines(v, `${path}[${i}]`));
  if (value && typeof value === 'object') {
    return Object.entries(value).flatMap(([k, v]) => jsonLines(v, path ? `${path}.${k}` : k));
  }
  return [`${path || 'value'}: ${String(value)}`];
}
