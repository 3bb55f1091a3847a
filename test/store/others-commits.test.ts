import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { GroupCommit } from '../../src/store/sqlite/group-commit.js';
import { openDatabase } from '../../src/store/sqlite/open-database.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { tempDir } from '../helpers/start-herald.js';

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

// another connection's commits, told once a callback (src/store/sqlite/others-commits.ts)
describe("other connections' commits", () => {
  const twoHandles = () => {
    const file = path.join(tempDir(), 'herald.db');
    const ours = openDatabase(file);
    ours.exec('CREATE TABLE t (x TEXT)');
    const theirs = openDatabase(file);
    return { ours, theirs };
  };

  it("are seen from the next event-loop turn on, and at once by a group commit's works", async () => {
    const { ours, theirs } = twoHandles();
    const commits = new GroupCommit(ours);
    const others = commits.othersCommits;
    const before = others.now();
    theirs.prepare('INSERT INTO t VALUES (?)').run('a');
    // asked already in this callback: the answer stands until the next
    expect(others.now()).toBe(before);
    await nextTurn();
    const after = others.now();
    expect(after).not.toBe(before);

    theirs.prepare('INSERT INTO t VALUES (?)').run('b');
    // the group's attempt reads it inside its transaction, for its works
    let seenByWork = -1;
    await commits.run(() => {
      seenByWork = others.inTransaction;
      ours.prepare('INSERT INTO t VALUES (?)').run('c');
    });
    expect(seenByWork).not.toBe(after);
    const read = others.now();
    expect(read).toBe(seenByWork);
    // this connection's own commits move nothing
    await nextTurn();
    expect(others.now()).toBe(read);
    ours.close();
    theirs.close();
  });

  it("are told by a group commit's read for the rest of its callback, however deep its microtasks (the runs it completes and claims ask no read of their own)", async () => {
    const { ours, theirs } = twoHandles();
    const commits = new GroupCommit(ours);
    const others = commits.othersCommits;
    let seenByWork = -1;
    await commits.run(() => {
      seenByWork = others.inTransaction;
      ours.prepare('INSERT INTO t VALUES (?)').run('c');
    });
    theirs.prepare('INSERT INTO t VALUES (?)').run('d');
    for (let i = 0; i < 5; i++) await Promise.resolve();
    expect(others.now()).toBe(seenByWork);
    await nextTurn();
    expect(others.now()).not.toBe(seenByWork);
    ours.close();
    theirs.close();
  });

  it("drop what the store holds: a knowledge search after another process's write, in a turn a group commit answered", async () => {
    const file = path.join(tempDir(), 'herald.db');
    const store = openSqliteStore(file);
    const other = openSqliteStore(file);
    const has = () => store.knowledge.hasChunks!('a');
    expect(has()).toBe(false);
    await nextTurn();
    await other.knowledge.add(
      { agentId: 'a', filename: 'one.txt', bytes: 1, mimeType: 'text/plain', sha256: '1'.padStart(64, '0'), metadata: null },
      [{ content: 'The quokka smiles.', terms: 'quokka smile' }],
    );
    // a write of this process's own commits in the turn after: its transaction sees the other's commit
    await nextTurn();
    await store.events.enqueue('main', 'news', 10);
    expect(has()).toBe(true);
    await other.close();
    await store.close();
  });
  const addDocumentFromAnotherProcess = (file: string) => {
    const sqliteStore = fileURLToPath(new URL('../../src/store/sqlite/sqlite-store.ts', import.meta.url));
    const write = `import { openSqliteStore } from ${JSON.stringify(sqliteStore)};
      const s = openSqliteStore(${JSON.stringify(file)});
      await s.knowledge.add({ agentId: 'a', filename: 'one.txt', bytes: 1, mimeType: 'text/plain', sha256: '1'.padStart(64, '0'), metadata: null },
        [{ content: 'The quokka smiles.', terms: 'quokka smile' }]);
      await s.close();`;
    execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', write]);
  };

  it("drop what the store holds: a request read after a group commit's turn, when another process wrote in between", async () => {
    const file = path.join(tempDir(), 'herald.db');
    const store = openSqliteStore(file);
    expect(store.knowledge.hasChunks!('a')).toBe(false);
    // this continuation runs in the check phase, right after the group commit's transaction
    await store.events.enqueue('main', 'news', 10);
    // another process (a CLI command) writes before this process's next poll phase...
    addDocumentFromAnotherProcess(file);
    // ...and a request sent after it is read in that poll phase
    await new Promise((resolve) => fs.stat(file, resolve));
    expect(store.knowledge.hasChunks!('a')).toBe(true);
    await store.close();
  });

  it('drop what the store holds: a request read after a search in the check phase (a hook run right after its claim)', async () => {
    const file = path.join(tempDir(), 'herald.db');
    const store = openSqliteStore(file);
    // a connection whose data is read in a poll phase after the check phase below
    const server = net.createServer();
    const accepted = new Promise<net.Socket>((resolve) => server.once('connection', resolve));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const client = net.connect((server.address() as net.AddressInfo).port, '127.0.0.1');
    const socket = await accepted;
    const readOnArrival = new Promise<boolean>((resolve) => socket.once('data', () => resolve(store.knowledge.hasChunks!('a'))));
    await store.events.enqueue('main', 'news', 10);
    // in the check phase, as a hook run's turn searches after the commit that woke it
    expect(store.knowledge.hasChunks!('a')).toBe(false);
    addDocumentFromAnotherProcess(file);
    client.write('x');
    expect(await readOnArrival).toBe(true);
    client.destroy();
    server.close();
    await store.close();
  });
});
