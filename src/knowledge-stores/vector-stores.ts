import type { AgentDirectory } from './agents-port.js';
import { HeraldError } from '../errors.js';
import { DEFAULT_CHUNK } from '../knowledge/parsing/chunk-text.js';
import { ingestDocument } from '../knowledge/ingest-document.js';
import type { KnowledgeIndex } from '../knowledge/knowledge-index.js';
import { agentOfVectorStore, agentVectorStoreId, knowledgeOwnerOf } from '../knowledge/knowledge-owner.js';
import type { KnowledgePassage } from '../knowledge/knowledge-passage.js';
import type { ParsePool } from '../knowledge/parsing/parse-pool.js';
import type { Store, StoredVectorStoreFile } from '../store/port.js';
import { mayUseAgent, type ApiPrincipal } from '../accounts/api-keys.js';
import { mayUseOwned } from '../accounts/owned-by.js';
import { randomHex } from '../utils/random-hex.js';
import { packedMap } from '../utils/packed-map.js';
import { FileQueue, type FileQueueLimits } from './vector-store-queue.js';

/** A vector store as the API shows it: one made through the API, or an agent's own knowledge. */
export interface VectorStoreView {
  id: string;
  name: string;
  metadata: Record<string, string> | null;
  createdAt: number;
  /** the knowledge owner of its chunks */
  owner: string;
  /** set for `vs_agent_<id>`: the agent whose own knowledge it is */
  agentId?: string;
}

export interface VectorStoresDeps {
  store: Pick<Store, 'files' | 'vectorStores'>;
  knowledge: KnowledgeIndex;
  parser: ParsePool;
  agents: AgentDirectory;
  logger: { warn(details: object, message: string): void };
  /** files in progress per key and in total, and how many are read at once */
  limits: FileQueueLimits;
}

/** a file waiting for its turn: only names, its bytes are read when its turn comes */
interface QueuedFile {
  row: StoredVectorStoreFile;
  owner: string;
}

/** how often a file whose parse found the parse queue full tries again, and how long it waits first */
const PARSE_QUEUE_TRIES = 5;
const PARSE_QUEUE_WAIT_MS = 2_000;

/** OpenAI's `last_error.code` for a file that could not be added */
function lastErrorOf(error: unknown): { code: string; message: string } {
  if (!(error instanceof HeraldError)) return { code: 'server_error', message: 'The file could not be processed.' };
  if (error.code === 'HERALD_UNSUPPORTED_MEDIA_TYPE') return { code: 'unsupported_file', message: error.message };
  if (error.code === 'HERALD_EMBEDDINGS_FAILED' || error.code === 'HERALD_STORE_UNAVAILABLE' || error.code === 'HERALD_UNAVAILABLE') return { code: 'server_error', message: error.message };
  return { code: 'invalid_file', message: error.message };
}

/**
 * Vector stores over the knowledge index: a store's files are parsed, chunked and indexed by the
 * document workers (off the event loop) after the request that added them has been answered, their
 * status going from in_progress to completed or failed. An agent's own knowledge is the vector
 * store `vs_agent_<id>`; `agents.list[].vectorStores` attaches stores an agent searches besides it.
 * Files wait in a bounded queue (vector-store-queue.ts) and are read a few at a time.
 */
export class VectorStores {
  private readonly queue: FileQueue<QueuedFile>;
  private stopping = false;

  constructor(private readonly deps: VectorStoresDeps) {
    this.queue = new FileQueue(deps.limits, (item) => this.process(item.row, item.owner));
  }

  /** the agents that search this store (config `agents.list[].vectorStores`) */
  attachedTo(id: string): string[] {
    return this.deps.agents.all().flatMap((a) => (a.vectorStores?.includes(id) ? [a.id] : []));
  }

  /**
   * What an agent's turns search: its own knowledge, then the stores attached to it, each passage
   * naming the file it came from. An agent with nothing found is answered at once (most agents
   * have no documents, and every turn searches).
   */
  searchForAgent(agentId: string, question: string, limit: number): KnowledgePassage[] | Promise<KnowledgePassage[]> {
    const attached = this.deps.agents.get(agentId)?.vectorStores ?? [];
    const stores = [{ id: agentVectorStoreId(agentId), owner: agentId }, ...packedMap(attached, (id) => ({ id, owner: knowledgeOwnerOf(id) }))];
    if (attached.length) return this.search(stores, question, limit);
    const found = this.deps.knowledge.search(agentId, question, limit);
    if (Array.isArray(found) && !found.length) return found;
    return Promise.resolve(found).then((passages) => this.namedFiles(stores, passages));
  }

  /** the store, or 404 naming `param`: a store the key may not see does not exist for it */
  async resolve(principal: ApiPrincipal, id: string, param = 'vector_store_id'): Promise<VectorStoreView> {
    const notFound = () => new HeraldError('HERALD_VECTOR_STORE_NOT_FOUND', `No vector store found with id '${id}'.`, { param });
    const agentId = agentOfVectorStore(id);
    const row = await this.deps.store.vectorStores.get(id);
    if (agentId !== undefined) {
      const agent = this.deps.agents.get(agentId);
      if (!agent || !mayUseAgent(principal, agent.id)) throw notFound();
      return { id, name: agent.name ?? agent.id, metadata: row?.metadata ?? null, createdAt: row?.createdAt ?? 0, owner: agent.id, agentId: agent.id };
    }
    if (!row || !mayUseOwned(principal, row.agents, this.attachedTo(id))) throw notFound();
    return { id, name: row.name, metadata: row.metadata, createdAt: row.createdAt, owner: knowledgeOwnerOf(id) };
  }

  /** the agents' own stores the key may use, then the stores made through the API, oldest first */
  async list(principal: ApiPrincipal): Promise<VectorStoreView[]> {
    const own = await Promise.all(this.deps.agents.all().filter((a) => mayUseAgent(principal, a.id)).map((a) => this.resolve(principal, agentVectorStoreId(a.id))));
    const made = (await this.deps.store.vectorStores.list())
      .filter((row) => !agentOfVectorStore(row.id) && mayUseOwned(principal, row.agents, this.attachedTo(row.id)))
      .map((row) => ({ id: row.id, name: row.name, metadata: row.metadata, createdAt: row.createdAt, owner: knowledgeOwnerOf(row.id) }));
    return [...own, ...made];
  }

  async create(principal: ApiPrincipal, input: { name?: string; metadata?: Record<string, string> | null; fileIds?: string[] }): Promise<VectorStoreView> {
    const fileIds = [...new Set(input.fileIds ?? [])];
    const files = [];
    for (const [i, fileId] of fileIds.entries()) files.push(await this.visibleFile(principal, fileId, `file_ids[${i}]`));
    // refused before anything is stored
    this.queue.reserve(principal.name, files.length);
    const id = `vs_${randomHex(12)}`;
    try {
      await this.deps.store.vectorStores.create({ id, name: input.name ?? '', metadata: input.metadata ?? null, createdAt: Date.now(), ...(principal.agents && { agents: principal.agents }) });
    } catch (error) {
      this.queue.release(principal.name, files.length);
      throw error;
    }
    await this.addReserved(principal.name, { id, owner: knowledgeOwnerOf(id) }, files);
    return this.resolve(principal, id);
  }

  async update(principal: ApiPrincipal, id: string, patch: { name?: string; metadata?: Record<string, string> | null }): Promise<VectorStoreView> {
    const view = await this.resolve(principal, id);
    if (view.agentId !== undefined) await this.ensureRow(view);
    await this.deps.store.vectorStores.update(id, patch);
    return this.resolve(principal, id);
  }

  /** deletes the store with its chunks (its files stay in /v1/files) */
  async delete(principal: ApiPrincipal, id: string): Promise<void> {
    const view = await this.resolve(principal, id);
    if (view.agentId !== undefined) {
      throw new HeraldError('HERALD_VECTOR_STORE_OF_AGENT', `${id} is the knowledge of the agent "${view.agentId}": delete its files instead.`, { param: 'vector_store_id' });
    }
    const documents = new Set((await this.deps.store.vectorStores.listFiles(id)).flatMap((f) => (f.documentId ? [f.documentId] : [])));
    await this.deps.store.vectorStores.delete(id);
    for (const documentId of documents) await this.deps.knowledge.delete(documentId);
  }

  /** adds a file (once: adding it again answers its row as it is) and queues it for processing */
  async addFile(principal: ApiPrincipal, vectorStoreId: string, fileId: string, param = 'file_id'): Promise<StoredVectorStoreFile> {
    return (await this.addFiles(principal, vectorStoreId, [fileId], () => param))[0]!;
  }

  /**
   * Adds files to a store, each once, and queues them: all of them, or none when the key's (or
   * this process's) files in progress would pass their limit (429 naming it).
   */
  async addFiles(principal: ApiPrincipal, vectorStoreId: string, fileIds: string[], paramOf: (i: number) => string): Promise<StoredVectorStoreFile[]> {
    const view = await this.resolve(principal, vectorStoreId);
    const files = [];
    for (const [i, fileId] of fileIds.entries()) files.push(await this.visibleFile(principal, fileId, paramOf(i)));
    this.queue.reserve(principal.name, files.length);
    try {
      if (view.agentId !== undefined) await this.ensureRow(view);
    } catch (error) {
      this.queue.release(principal.name, files.length);
      throw error;
    }
    return this.addReserved(principal.name, view, files);
  }

  /** adds the files in places held for `key`: each row created is queued, the other places given back */
  private async addReserved(key: string, view: Pick<VectorStoreView, 'id' | 'owner'>, files: { id: string; bytes: number }[]): Promise<StoredVectorStoreFile[]> {
    const rows: StoredVectorStoreFile[] = [];
    try {
      for (const file of files) {
        const { file: row, created } = await this.deps.store.vectorStores.addFile({
          vectorStoreId: view.id, fileId: file.id, status: 'in_progress', lastError: null, documentId: null, bytes: file.bytes, createdAt: Date.now(),
        });
        rows.push(row);
        if (created) this.queue.push({ row, owner: view.owner }, key);
        else this.queue.release(key, 1);
      }
    } finally {
      this.queue.release(key, files.length - rows.length);
    }
    return rows;
  }

  /**
   * The store's files, oldest first; an agent's store also shows the documents uploaded through
   * /v1/knowledge (their id is the document's), completed.
   */
  async files(principal: ApiPrincipal, vectorStoreId: string): Promise<StoredVectorStoreFile[]> {
    const view = await this.resolve(principal, vectorStoreId);
    const rows = await this.deps.store.vectorStores.listFiles(vectorStoreId);
    if (view.agentId === undefined) return rows;
    const added = new Set(rows.map((r) => r.documentId));
    const uploaded = (await this.deps.knowledge.list(view.agentId))
      .filter((d) => !added.has(d.id))
      .map((d): StoredVectorStoreFile => ({ vectorStoreId, fileId: d.id, status: 'completed', lastError: null, documentId: d.id, bytes: d.bytes, createdAt: d.createdAt }));
    return [...uploaded, ...rows].sort((a, b) => a.createdAt - b.createdAt);
  }

  async file(principal: ApiPrincipal, vectorStoreId: string, fileId: string): Promise<StoredVectorStoreFile> {
    const found = (await this.files(principal, vectorStoreId)).find((f) => f.fileId === fileId);
    if (!found) throw new HeraldError('HERALD_FILE_NOT_FOUND', `No file ${fileId} in the vector store ${vectorStoreId}.`, { param: 'file_id' });
    return found;
  }

  /** the file's chunks as the store holds them (none until it is completed) */
  async contentOf(principal: ApiPrincipal, vectorStoreId: string, fileId: string): Promise<string[]> {
    const found = await this.file(principal, vectorStoreId, fileId);
    return found.status === 'completed' && found.documentId ? this.deps.knowledge.chunksOf(found.documentId) : [];
  }

  /** takes the file out of the store (its chunks with it); the file stays in /v1/files */
  async removeFile(principal: ApiPrincipal, vectorStoreId: string, fileId: string): Promise<void> {
    const found = await this.file(principal, vectorStoreId, fileId);
    const removed = await this.deps.store.vectorStores.removeFile(vectorStoreId, fileId);
    if (!removed && found.documentId === fileId) await this.deps.knowledge.delete(fileId);
    else await this.dropDocument(vectorStoreId, found.documentId);
  }

  /** a deleted file leaves every store holding it */
  async forgetFile(fileId: string): Promise<void> {
    for (const row of await this.deps.store.vectorStores.rowsOfFile(fileId)) {
      await this.deps.store.vectorStores.removeFile(row.vectorStoreId, fileId);
      await this.dropDocument(row.vectorStoreId, row.documentId);
    }
  }

  /**
   * Searches the stores (resolved for the caller already) with one question, best first; each
   * passage names the file it came from.
   */
  async search(stores: Pick<VectorStoreView, 'id' | 'owner'>[], question: string, limit: number): Promise<KnowledgePassage[]> {
    return this.namedFiles(stores, await this.deps.knowledge.searchAll([...new Set(stores.map((s) => s.owner))], question, limit));
  }

  /** each passage with the file (of /v1/files) it came from; a document uploaded through /v1/knowledge is its own file */
  private async namedFiles(stores: Pick<VectorStoreView, 'id'>[], passages: KnowledgePassage[]): Promise<KnowledgePassage[]> {
    if (!passages.length) return passages;
    const fileOf = new Map<string, string>();
    for (const store of stores) for (const row of await this.deps.store.vectorStores.listFiles(store.id)) if (row.documentId) fileOf.set(row.documentId, row.fileId);
    return passages.map((p) => ({ ...p, fileId: fileOf.get(p.documentId) ?? p.documentId }));
  }

  /** takes up the files a stopped process left in progress: queued, read a few at a time like any */
  async resume(): Promise<void> {
    for (const row of await this.deps.store.vectorStores.inProgress()) this.queue.resume({ row, owner: knowledgeOwnerOf(row.vectorStoreId) });
  }

  /**
   * At stop, before the parse workers and the store close: no further file is started (those
   * waiting stay in progress in the store, for the next start) and the files being read are waited for.
   */
  async settle(): Promise<void> {
    this.stopping = true;
    await this.queue.drain();
  }

  private async process(row: StoredVectorStoreFile, owner: string): Promise<void> {
    const { vectorStoreId, fileId } = row;
    try {
      // cancelled, removed or finished by another replica while it waited: nothing to read
      if ((await this.deps.store.vectorStores.getFile(vectorStoreId, fileId))?.status !== 'in_progress') return;
      const [file, bytes] = [await this.deps.store.files.get(fileId), await this.deps.store.files.content(fileId)];
      if (!file || !bytes) {
        await this.deps.store.vectorStores.finishFile(vectorStoreId, fileId, { status: 'failed', lastError: { code: 'invalid_file', message: `The file ${fileId} was deleted.` }, documentId: null });
        return;
      }
      const { document } = await this.ingest(owner, file.filename, bytes);
      const finished = await this.deps.store.vectorStores.finishFile(vectorStoreId, fileId, { status: 'completed', lastError: null, documentId: document.id });
      // removed from the store (or the store deleted) while it was read: its chunks go too
      if (!finished) await this.dropDocument(vectorStoreId, document.id);
    } catch (error) {
      const lastError = lastErrorOf(error);
      this.deps.logger.warn({ vectorStoreId, fileId, code: lastError.code }, 'vector store file failed');
      await this.deps.store.vectorStores.finishFile(vectorStoreId, fileId, { status: 'failed', lastError, documentId: null }).catch(() => false);
    }
  }

  /**
   * Reads and indexes the file. A parse queue too long (the server's state, not the file's) is
   * waited out and tried again a few times before the file fails with `server_error`.
   */
  private async ingest(owner: string, filename: string, bytes: Uint8Array) {
    for (let attempt = 1; ; attempt++) {
      try {
        return await ingestDocument(this.deps.knowledge, this.deps.parser, { agentId: owner, filename, bytes, chunking: DEFAULT_CHUNK, moveBytes: true });
      } catch (error) {
        if (!(error instanceof HeraldError) || error.code !== 'HERALD_UNAVAILABLE' || attempt >= PARSE_QUEUE_TRIES || this.stopping) throw error;
        await new Promise((resolve) => setTimeout(resolve, PARSE_QUEUE_WAIT_MS * attempt));
      }
    }
  }

  /** deletes a store's document unless another of its files holds the same bytes */
  private async dropDocument(vectorStoreId: string, documentId: string | null): Promise<void> {
    if (!documentId) return;
    const shared = (await this.deps.store.vectorStores.listFiles(vectorStoreId)).some((f) => f.documentId === documentId);
    if (!shared) await this.deps.knowledge.delete(documentId);
  }

  /** a file not read yet is not read: `cancelled` (its chunks, should its reading finish, are dropped) */
  async cancelFile(vectorStoreId: string, fileId: string): Promise<void> {
    await this.deps.store.vectorStores.finishFile(vectorStoreId, fileId, { status: 'cancelled', lastError: null, documentId: null });
  }

  /** the file, or 404 naming `param` */
  async visibleFile(principal: ApiPrincipal, fileId: string, param: string) {
    const file = await this.deps.store.files.get(fileId);
    if (!file || !mayUseOwned(principal, file.agents)) throw new HeraldError('HERALD_FILE_NOT_FOUND', `No such file: ${fileId}`, { param });
    return file;
  }

  /** an agent's store gets its row when a file is first added or its metadata set */
  private async ensureRow(view: VectorStoreView): Promise<void> {
    if (await this.deps.store.vectorStores.get(view.id)) return;
    await this.deps.store.vectorStores.create({ id: view.id, name: view.name, metadata: null, createdAt: Date.now(), agents: [view.agentId!] }).catch(async (error) => {
      // two first additions at once: the other one made it
      if (!(await this.deps.store.vectorStores.get(view.id))) throw error;
    });
  }
}
