import type { KnowledgePassage } from '../../knowledge/knowledge-passage.js';

/** where the answer cites passage i: its `[i+1]` marker, or the end of the text when it does not */
function citedAt(text: string, i: number): { start: number; end: number } {
  const marker = `[${i + 1}]`;
  const at = text.indexOf(marker);
  return at >= 0 ? { start: at, end: at + marker.length } : { start: text.length, end: text.length };
}

/** the passage came from a file of /v1/files (a document uploaded to /v1/knowledge is its own file id) */
export const uploadedFile = (p: KnowledgePassage): boolean => p.fileId !== undefined && p.fileId !== p.documentId;

/**
 * Knowledge passages as the Responses API's `file_citation` annotations: `file_id` the file of
 * /v1/files a vector store's passage came from, else the knowledge document; `index` where the
 * answer cites it.
 */
export const fileCitations = (text: string, passages: KnowledgePassage[]) =>
  passages.map((p, i) => ({ type: 'file_citation' as const, file_id: p.fileId ?? p.documentId, filename: p.filename, index: citedAt(text, i).start }));

/**
 * Knowledge passages as chat completions' `url_citation` annotations, the only kind that API
 * defines (clients that ignore herald's `citations` extension still show sources): the URL is the
 * file of /v1/files a vector store's passage came from, else the knowledge document of
 * /v1/knowledge, the title its file name, the span its `[n]` marker.
 */
export const urlCitations = (text: string, passages: KnowledgePassage[], origin: string) =>
  passages.map((p, i) => {
    const { start, end } = citedAt(text, i);
    return { type: 'url_citation' as const, url_citation: { url: uploadedFile(p) ? `${origin}/v1/files/${p.fileId}` : `${origin}/v1/knowledge/${p.documentId}`, title: p.filename, start_index: start, end_index: end } };
  });
