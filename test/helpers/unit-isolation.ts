import childProcess from 'node:child_process';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import net from 'node:net';

/**
 * Setup of the `unit` project: a unit test opens no socket, spawns no process and opens no
 * database (so it reaches no PostgreSQL, no browser, and boots no gateway, whose store is SQLite
 * at least). Each door throws, naming the rule, so a file that needs one fails at once and is
 * renamed into the project that gives it (docs/development.md#the-test-projects).
 */
function refuse(what: string): never {
  throw new Error(`a unit test may not ${what}: name the file *.e2e.test.ts (or *postgres*, *.browser.test.ts) to run it in its project (docs/development.md#the-test-projects)`);
}

net.Server.prototype.listen = function listen() {
  refuse('listen on a socket');
};
// every outgoing TCP connection goes through Socket#connect: fetch, http.request, pg, redis
net.Socket.prototype.connect = function connect() {
  refuse('open a socket');
};
for (const name of ['spawn', 'spawnSync', 'fork', 'exec', 'execSync', 'execFile', 'execFileSync'] as const) {
  (childProcess as unknown as Record<string, unknown>)[name] = () => refuse(`spawn a process (${name})`);
}
// `import { spawn } from 'node:child_process'` reads the ES module's bindings: bring them in step
syncBuiltinESMExports();

// every use of a SQLite database goes through these methods of better-sqlite3's one class
const Database = createRequire(import.meta.url)('better-sqlite3') as { prototype: Record<string, unknown> };
for (const name of ['prepare', 'exec', 'pragma', 'transaction'] as const) {
  Database.prototype[name] = () => refuse('open a database (SQLite)');
}
