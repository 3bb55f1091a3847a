/**
 * Files uploaded through /v1/files and the vector stores made of them (OpenAI's knowledge API).
 * A vector store's searchable text lives in the knowledge repo, under the vector store's owner key;
 * these tables keep what OpenAI's objects show: a file's bytes and name, a vector store's name,
 * and which files it holds with each one's processing status.
 */

/** One uploaded file; its bytes are read apart (`FilesRepo.content`). */
export interface StoredFile {
  id: string;
  filename: string;
  purpose: string;
  bytes: number;
  createdAt: number;
  /** the agents of the API key that uploaded it; undefined: a key of every agent */
  agents?: string[];
}

export interface FilesRepo {
  create(file: StoredFile, content: Uint8Array): Promise<void>;
  get(id: string): Promise<StoredFile | undefined>;
  content(id: string): Promise<Uint8Array | undefined>;
  /** oldest first */
  list(): Promise<StoredFile[]>;
  /** false when there was none */
  delete(id: string): Promise<boolean>;
}

export interface StoredVectorStore {
  id: string;
  name: string;
  metadata: Record<string, string> | null;
  createdAt: number;
  /** the agents of the API key that made it; undefined: a key of every agent */
  agents?: string[];
}

export type VectorStoreFileStatus = 'in_progress' | 'completed' | 'failed' | 'cancelled';

/** One file of a vector store: its status, and once completed the knowledge document holding its chunks. */
export interface StoredVectorStoreFile {
  vectorStoreId: string;
  fileId: string;
  status: VectorStoreFileStatus;
  /** failed: why (OpenAI's `last_error`) */
  lastError: { code: string; message: string } | null;
  documentId: string | null;
  bytes: number;
  createdAt: number;
}

export interface VectorStoresRepo {
  create(store: StoredVectorStore): Promise<void>;
  get(id: string): Promise<StoredVectorStore | undefined>;
  /** oldest first */
  list(): Promise<StoredVectorStore[]>;
  /** replaces name and metadata; undefined when there is no such store */
  update(id: string, patch: { name?: string; metadata?: Record<string, string> | null }): Promise<StoredVectorStore | undefined>;
  /** removes the store and its file rows at once; false when there was none */
  delete(id: string): Promise<boolean>;
  /** adds a file row; a file already in the store keeps its row (`created: false`) */
  addFile(row: StoredVectorStoreFile): Promise<{ file: StoredVectorStoreFile; created: boolean }>;
  getFile(vectorStoreId: string, fileId: string): Promise<StoredVectorStoreFile | undefined>;
  /** oldest first */
  listFiles(vectorStoreId: string): Promise<StoredVectorStoreFile[]>;
  /** records the outcome of processing; only a row still in progress changes (false otherwise) */
  finishFile(vectorStoreId: string, fileId: string, outcome: Pick<StoredVectorStoreFile, 'status' | 'lastError' | 'documentId'>): Promise<boolean>;
  removeFile(vectorStoreId: string, fileId: string): Promise<boolean>;
  /** the rows of a file in every store holding it (a file deleted leaves them all) */
  rowsOfFile(fileId: string): Promise<StoredVectorStoreFile[]>;
  /** rows still in progress, every store's (what a restart takes up again) */
  inProgress(): Promise<StoredVectorStoreFile[]>;
}
