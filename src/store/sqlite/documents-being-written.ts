import path from 'node:path';
import type { SqliteDatabase } from './open-database.js';

/** a document row this process is writing the chunks of, and when that ends (stored or failed) */
export interface DocumentBeingWritten {
  id: string;
  ended: Promise<void>;
}

/**
 * The knowledge documents this process is writing, by database file, owner and sha256: every
 * handle of the process on one file shares them. A document stays `indexing` while its chunks are
 * written, a transaction per batch; a second `add` of the same bytes waits for the one writing it
 * here, and an `indexing` row none writes here (another process's, or one a crash cut) is no match.
 */
const writing = new Map<string, DocumentBeingWritten>();
/** an in-memory database is its handle's alone */
const memoryNames = new WeakMap<SqliteDatabase, string>();
let memories = 0;

const fileOf = (db: SqliteDatabase): string => {
  if (!db.memory) return path.resolve(db.name);
  let name = memoryNames.get(db);
  if (!name) memoryNames.set(db, (name = `:memory:${++memories}`));
  return name;
};

export function documentsBeingWritten(db: SqliteDatabase) {
  const file = fileOf(db);
  const keyOf = (agentId: string, sha256: string) => `${file}\u0000${agentId}\u0000${sha256}`;
  return {
    /** the document of these bytes this process is writing, if any */
    get: (agentId: string, sha256: string): DocumentBeingWritten | undefined => writing.get(keyOf(agentId, sha256)),
    /** whether this process is writing the document of this id */
    has: (id: string): boolean => [...writing.values()].some((d) => d.id === id),
    /** marks the document as written by this process until `end` is called */
    start(agentId: string, sha256: string, id: string): { end(): void } {
      const key = keyOf(agentId, sha256);
      let end!: () => void;
      writing.set(key, { id, ended: new Promise((resolve) => (end = resolve)) });
      return {
        end: () => {
          if (writing.get(key)?.id === id) writing.delete(key);
          end();
        },
      };
    },
  };
}
