/**
 * The pages a store's commits wrote, by B-tree: its WAL's frames read back and each named by the
 * table or index its page belongs to (SQLite's dbstat, read through a second connection). Each
 * frame is a whole page plus its 24-byte header, so a commit's bytes are its pages, whatever the
 * size of its rows. Used by bench/completion-pages.bench.ts (a chat completion's commit) and
 * bench/store-run-path.bench.ts (an agent run's commits).
 */
import fs from 'node:fs';
import type BetterSqlite3 from 'better-sqlite3';

export interface WalPages {
  /** the frames in the WAL: one page written by one commit */
  frames: number;
  /** the WAL's length in bytes, its header included */
  bytes: number;
  pageSize: number;
  /** the frames by B-tree name, most first; page 1 (the file header) and pages freed since named as such */
  byTree: [string, number][];
}

/** the frames in `file`'s WAL (emptied before the commits counted: `PRAGMA wal_checkpoint(TRUNCATE)`), named by B-tree through `reader`, a connection of its own to the file */
export function walPages(file: string, reader: BetterSqlite3.Database): WalPages {
  const wal = fs.readFileSync(`${file}-wal`);
  const pageSize = wal.readUInt32BE(8);
  const tree = new Map<number, string>();
  for (const row of reader.prepare('SELECT name, pageno FROM dbstat').all() as { name: string; pageno: number }[]) tree.set(row.pageno, row.name);
  const counts = new Map<string, number>();
  let frames = 0;
  for (let at = 32; at + 24 + pageSize <= wal.length; at += 24 + pageSize) {
    const page = wal.readUInt32BE(at);
    const name = page === 1 ? '(page 1: the file header)' : (tree.get(page) ?? '(a page freed since)');
    counts.set(name, (counts.get(name) ?? 0) + 1);
    frames++;
  }
  return { frames, bytes: wal.length, pageSize, byTree: [...counts].sort((a, b) => b[1] - a[1]) };
}
