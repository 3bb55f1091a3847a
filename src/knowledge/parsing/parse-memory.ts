import { documentLimitErrors } from './document-limits.js';

/**
 * The least heap a parser takes per element of the markup it reads, measured: mammoth (a DOCX: a
 * DOM, then its own document model) 0.8 KB for empty paragraphs, 0.9 KB for breaks and tabs,
 * 1.2 KB for runs of text, table cells and styled paragraphs, 1.7 KB with many attributes;
 * html-to-text (a DOM, then the text) 0.26 KB for void elements, 0.52 KB for paragraphs, 0.62 KB
 * for styled spans and links. Each is taken below all its figures, so only a document that surely
 * cannot be read within `workerMemoryMb` is refused before parsing; the worker's heap limit
 * decides the rest.
 */
const HEAP_BYTES_PER_ELEMENT = { docx: 768, html: 256 } as const;

/** refuses a document whose `elements` cannot be parsed within `workerMemoryMb` (undefined: no bound given) */
export function checkParseMemory(format: keyof typeof HEAP_BYTES_PER_ELEMENT, elements: number, workerMemoryMb: number | undefined): void {
  const neededMb = Math.ceil((elements * HEAP_BYTES_PER_ELEMENT[format]) / 2 ** 20);
  if (workerMemoryMb !== undefined && neededMb > workerMemoryMb) throw documentLimitErrors.memoryEstimate(workerMemoryMb, elements, neededMb, format === 'docx' ? 'XML' : 'HTML');
}
