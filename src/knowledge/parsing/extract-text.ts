import { csvRows } from './csv-rows.js';
import type { DocumentType } from './detect-type.js';
import { documentLimitErrors } from './document-limits.js';

/**
 * The searchable text of a document. Structured formats become lines that carry their own
 * context (a CSV row as `column: value` pairs, JSON as `path: value`), so a chunk cut from
 * the middle still says what its numbers mean. A format's parser is loaded with its first
 * document: a worker that reads texts holds none of them (PDF's alone is megabytes of heap).
 */
export async function extractText(type: DocumentType, bytes: Uint8Array, decoded?: string, maxChars = Infinity): Promise<string> {
  const text = () => decoded ?? new TextDecoder().decode(bytes);
  switch (type) {
    case 'txt':
    case 'md':
      return text();
    case 'html': {
      const { convert: htmlToText } = await import('html-to-text');
      return htmlToText(text(), {
        wordwrap: false,
        selectors: [
          { selector: 'a', options: { ignoreHref: true } },
          { selector: 'img', format: 'skip' },
        ],
      });
    }
    case 'csv':
      return csvText(text());
    case 'json':
      return jsonLines(JSON.parse(text()), maxChars).join('\n');
    case 'pdf': {
      const { extractText: pdfText, getDocumentProxy } = await import('unpdf');
      const pdf = await getDocumentProxy(new Uint8Array(bytes));
      const { text: pages } = await pdfText(pdf, { mergePages: false });
      return (pages as string[]).join('\n\n');
    }
    case 'docx': {
      const { default: mammoth } = await import('mammoth');
      return (await mammoth.extractRawText({ buffer: Buffer.from(bytes) })).value;
    }
  }
}

function csvText(text: string): string {
  const [header, ...rows] = csvRows(text);
  if (!header) return '';
  if (!rows.length) return header.join(', ');
  return rows.map((row) => row.map((value, i) => `${header[i]?.trim() || `column ${i + 1}`}: ${value.trim()}`).join('; ')).join('\n');
}

/**
 * `path: value` per leaf, depth first in document order. Iterative, and stopping once the lines
 * outgrow `maxChars`: a deeply keyed megabyte repeats its long paths on every leaf, which would
 * otherwise grow to hundreds of megabytes (or overflow the stack) before anything could refuse it.
 */
function jsonLines(root: unknown, maxChars: number): string[] {
  const lines: string[] = [];
  let chars = 0;
  const stack: [unknown, string][] = [[root, '']];
  while (stack.length) {
    const [value, path] = stack.pop()!;
    if (value && typeof value === 'object') {
      const entries = Array.isArray(value) ? value.map((v, i) => [`${path}[${i}]`, v] as const) : Object.entries(value).map(([k, v]) => [path ? `${path}.${k}` : k, v] as const);
      for (let i = entries.length - 1; i >= 0; i--) stack.push([entries[i]![1], entries[i]![0]]);
      continue;
    }
    const line = `${path || 'value'}: ${String(value)}`;
    chars += line.length + 1;
    if (chars > maxChars) throw documentLimitErrors.text(maxChars);
    lines.push(line);
  }
  return lines;
}
