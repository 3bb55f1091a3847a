/** One chunk of an agent's knowledge base found for a question: what a model may cite. */
export interface KnowledgePassage {
  documentId: string;
  filename: string;
  chunkId: string;
  score: number;
  content: string;
  /** the /v1/files file it came from, when it was found in a vector store (else the document is the file) */
  fileId?: string;
}
