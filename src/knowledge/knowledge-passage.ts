/** One chunk of an agent's knowledge base found for a question: what a model may cite. */
export interface KnowledgePassage {
  documentId: string;
  filename: string;
  chunkId: string;
  score: number;
  content: string;
}
