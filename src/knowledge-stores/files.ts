import { HeraldError } from '../errors.js';
import type { StoredFile, Store } from '../store/port.js';
import type { ApiPrincipal } from '../accounts/api-keys.js';
import { mayUseOwned } from '../accounts/owned-by.js';
import { uuidV7 } from '../time/uuid-v7.js';

/** the purposes herald keeps files for: knowledge (vector stores) and a user's own files */
export const FILE_PURPOSES = ['assistants', 'user_data'] as const;
export type FilePurpose = (typeof FILE_PURPOSES)[number];

/**
 * Files of /v1/files: the bytes as uploaded, kept in the store, seen by the keys that may
 * (`mayUseOwned`); a file another key may not see is not found, never forbidden.
 */
export class Files {
  constructor(
    private readonly store: Pick<Store, 'files'>,
    /** takes a deleted file out of every vector store holding it */
    private readonly onDelete: (fileId: string) => Promise<void>,
  ) {}

  async create(principal: ApiPrincipal, file: { filename: string; purpose: FilePurpose; bytes: Uint8Array }): Promise<StoredFile> {
    const stored: StoredFile = {
      // time-ordered with a counter: files made in one millisecond list in the order they were made
      id: `file-${uuidV7().replaceAll('-', '')}`,
      filename: file.filename,
      purpose: file.purpose,
      bytes: file.bytes.byteLength,
      createdAt: Date.now(),
      ...(principal.agents && { agents: principal.agents }),
    };
    await this.store.files.create(stored, file.bytes);
    return stored;
  }

  /** the file, or 404 naming `param` */
  async get(principal: ApiPrincipal, id: string, param = 'file_id'): Promise<StoredFile> {
    const file = await this.store.files.get(id);
    if (!file || !mayUseOwned(principal, file.agents)) throw new HeraldError('HERALD_FILE_NOT_FOUND', `No such file: ${id}`, { param });
    return file;
  }

  async list(principal: ApiPrincipal, purpose?: string): Promise<StoredFile[]> {
    return (await this.store.files.list()).filter((f) => mayUseOwned(principal, f.agents) && (purpose === undefined || f.purpose === purpose));
  }

  async content(principal: ApiPrincipal, id: string): Promise<{ file: StoredFile; bytes: Uint8Array }> {
    const file = await this.get(principal, id);
    const bytes = await this.store.files.content(id);
    if (!bytes) throw new HeraldError('HERALD_FILE_NOT_FOUND', `No such file: ${id}`, { param: 'file_id' });
    return { file, bytes };
  }

  /** deletes the file and takes it out of every vector store (OpenAI's rule for DELETE /files) */
  async delete(principal: ApiPrincipal, id: string): Promise<void> {
    await this.get(principal, id);
    await this.onDelete(id);
    await this.store.files.delete(id);
  }
}
