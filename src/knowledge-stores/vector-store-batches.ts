import { HeraldError } from '../errors.js';
import type { StateRepo, StoredVectorStoreFile } from '../store/port.js';
import type { ApiPrincipal } from '../accounts/api-keys.js';
import { randomHex } from '../utils/random-hex.js';
import type { VectorStores } from './vector-stores.js';

/** A file batch: which files of a store were added together (their rows carry the status). */
interface StoredBatch {
  id: string;
  vectorStoreId: string;
  fileIds: string[];
  createdAt: number;
}

export interface FileBatchView {
  batch: StoredBatch;
  files: StoredVectorStoreFile[];
  status: 'in_progress' | 'completed' | 'cancelled';
}

const keyOf = (id: string) => `vector_store_batch:${id}`;

/**
 * OpenAI's vector store file batches (what `vectorStores.fileBatches.uploadAndPoll` uses): files
 * added to a store at once, each processed as one added alone. A batch is a small record in the
 * state repo (shared by replicas, kept across restarts); its status is its files'.
 */
export class VectorStoreBatches {
  constructor(
    private readonly stores: VectorStores,
    private readonly state: StateRepo,
  ) {}

  async create(principal: ApiPrincipal, vectorStoreId: string, fileIds: string[]): Promise<FileBatchView> {
    await this.stores.resolve(principal, vectorStoreId);
    const unique = [...new Set(fileIds)];
    if (!unique.length) throw new HeraldError('HERALD_INVALID_FIELD', 'file_ids must name at least one file', { param: 'file_ids' });
    for (const [i, fileId] of unique.entries()) await this.stores.visibleFile(principal, fileId, `file_ids[${i}]`);
    // the files first: a batch over the key's limit of files in progress is refused (429) whole, leaving no record
    await this.stores.addFiles(principal, vectorStoreId, unique, (i) => `file_ids[${i}]`);
    const batch: StoredBatch = { id: `vsfb_${randomHex(12)}`, vectorStoreId, fileIds: unique, createdAt: Date.now() };
    await this.state.set(keyOf(batch.id), batch);
    return this.get(principal, vectorStoreId, batch.id);
  }

  async get(principal: ApiPrincipal, vectorStoreId: string, batchId: string): Promise<FileBatchView> {
    await this.stores.resolve(principal, vectorStoreId);
    const batch = await this.state.get<StoredBatch>(keyOf(batchId));
    if (!batch || batch.vectorStoreId !== vectorStoreId) throw new HeraldError('HERALD_NOT_FOUND', `No file batch ${batchId} in the vector store ${vectorStoreId}.`, { param: 'batch_id' });
    const inBatch = new Set(batch.fileIds);
    const files = (await this.stores.files(principal, vectorStoreId)).filter((f) => inBatch.has(f.fileId));
    const status = files.some((f) => f.status === 'in_progress') ? 'in_progress' : files.some((f) => f.status === 'cancelled') ? 'cancelled' : 'completed';
    return { batch, files, status };
  }

  /** stops what has not been read yet: those files become `cancelled` (and so the batch, once none is in progress) */
  async cancel(principal: ApiPrincipal, vectorStoreId: string, batchId: string): Promise<FileBatchView> {
    const { files } = await this.get(principal, vectorStoreId, batchId);
    for (const f of files) if (f.status === 'in_progress') await this.stores.cancelFile(vectorStoreId, f.fileId);
    return this.get(principal, vectorStoreId, batchId);
  }
}
