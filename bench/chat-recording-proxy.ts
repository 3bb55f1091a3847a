/**
 * The chat benchmark's second floor: the bare proxy (bench/chat-proxy.ts) that also keeps, before
 * it answers, the records herald keeps of a completion, the same way: the request parsed for its
 * messages, the upstream's answer parsed for its text and usage (a stream's events as they pass),
 * then in one group commit (bench/baseline-group-commit.ts, herald's algorithm) a new
 * conversation's two messages and its summary, and the usage row; the answer (a stream's `[DONE]`)
 * goes out after the commit; a request with `store: false` gets the usage row alone in its commit,
 * as herald keeps only that of such a completion. It writes the upstream's bytes as they came: no agent, no prompt,
 * no answer of its own shape, no budget, no rate limit.
 *
 * herald's CPU against it is what herald spends beyond keeping its records; this floor's against
 * the bare proxy is what any server keeping them before the answer pays on this machine.
 * Tables of its own with no index beyond their keys (its reads are none). SQLite as herald's:
 * better-sqlite3, WAL, synchronous=NORMAL.
 * Usage: `node --import tsx bench/chat-recording-proxy.ts <upstream origin> <key> <database file>`;
 * prints `listening on <url>`.
 */
import type http from 'node:http';
import Database from 'better-sqlite3';
import { Agent, type Dispatcher } from 'undici';
import { groupCommit } from './baseline-group-commit.js';
import { uuidV7 } from './baseline-receipts.js';
import { serveProxy } from './proxy-door.js';

const [upstream, key, dbFile] = process.argv.slice(2) as [string, string, string];
const dispatcher = new Agent({ headersTimeout: 0, bodyTimeout: 0 });

const db = new Database(dbFile);
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
db.exec(`
  CREATE TABLE IF NOT EXISTS messages (
    conversation TEXT NOT NULL, id INTEGER NOT NULL, role TEXT NOT NULL, content TEXT NOT NULL, created_at INTEGER NOT NULL,
    PRIMARY KEY (conversation, id)
  ) WITHOUT ROWID;
  CREATE TABLE IF NOT EXISTS conversations (id TEXT PRIMARY KEY, messages INTEGER NOT NULL, first_at INTEGER NOT NULL, last_at INTEGER NOT NULL) WITHOUT ROWID;
  CREATE TABLE IF NOT EXISTS usage (
    id INTEGER PRIMARY KEY, at INTEGER NOT NULL, model TEXT NOT NULL, key_name TEXT,
    prompt_tokens INTEGER NOT NULL, completion_tokens INTEGER NOT NULL, total_tokens INTEGER NOT NULL
  );
`);
const commit = groupCommit(db);
const insertTurn = db.prepare('INSERT INTO messages (conversation, id, role, content, created_at) VALUES (?, 1, ?, ?, ?), (?, 2, ?, ?, ?)');
const insertConversation = db.prepare('INSERT INTO conversations (id, messages, first_at, last_at) VALUES (?, 2, ?, ?)');
const insertUsage = db.prepare('INSERT INTO usage (at, model, key_name, prompt_tokens, completion_tokens, total_tokens) VALUES (?, ?, ?, ?, ?, ?)');

interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

const record = (question: string, model: string, answer: string, usage: Usage | undefined, store: boolean) =>
  commit(() => {
    const now = Date.now();
    if (store) {
      const conversation = uuidV7(now);
      insertTurn.run(conversation, 'user', question, now, conversation, 'assistant', answer, now);
      insertConversation.run(conversation, now, now);
    }
    insertUsage.run(now, model, 'bench', usage?.prompt_tokens ?? 0, usage?.completion_tokens ?? 0, usage?.total_tokens ?? 0);
  });

/** a stream's text and usage, gathered from its `data:` lines as they pass */
class StreamReading {
  text = '';
  usage: Usage | undefined;
  private partial = '';

  read(chunk: Buffer): void {
    const lines = (this.partial + chunk.toString('utf8')).split('\n');
    this.partial = lines.pop()!;
    for (const line of lines) {
      if (!line.startsWith('data: ') || line === 'data: [DONE]') continue;
      const event = JSON.parse(line.slice(6)) as { choices: { delta?: { content?: string } }[]; usage?: Usage };
      this.text += event.choices[0]?.delta?.content ?? '';
      if (event.usage) this.usage = event.usage;
    }
  }
}

const failed = (res: http.ServerResponse, error: unknown) => {
  if (res.headersSent) res.destroy(error as Error);
  else res.writeHead(502, { 'content-type': 'application/json' }).end('{"error":{"message":"upstream failed"}}');
};

serveProxy(key, (req, res, body) => {
  const request = JSON.parse(body.toString('utf8')) as { model: string; stream?: boolean; store?: boolean; messages: { role: string; content: string }[] };
  const store = request.store !== false;
  const question = request.messages.at(-1)?.content ?? '';
  const answerParts: Buffer[] = [];
  const stream = request.stream === true ? new StreamReading() : undefined;
  const handler: Dispatcher.DispatchHandler = {
    onRequestStart() {},
    onResponseStart(_controller, status, headers) {
      res.writeHead(status, { 'content-type': String(headers['content-type'] ?? 'application/json') });
    },
    onResponseData(_controller, chunk) {
      if (!stream) return void answerParts.push(chunk);
      // everything before the end goes out as it comes; the end waits for the commit
      const done = chunk.indexOf('data: [DONE]');
      if (done < 0) {
        stream.read(chunk);
        res.write(chunk);
        return;
      }
      stream.read(chunk.subarray(0, done));
      if (done > 0) res.write(chunk.subarray(0, done));
      answerParts.push(chunk.subarray(done));
    },
    onResponseEnd() {
      const tail = Buffer.concat(answerParts);
      let written: Promise<void>;
      if (stream) written = record(question, request.model, stream.text, stream.usage, store);
      else {
        const answer = JSON.parse(tail.toString('utf8')) as { choices: { message: { content: string } }[]; usage?: Usage };
        written = record(question, request.model, answer.choices[0]?.message.content ?? '', answer.usage, store);
      }
      written.then(() => res.end(tail), (error) => failed(res, error));
    },
    onResponseError(_controller, error) {
      failed(res, error);
    },
  };
  dispatcher.dispatch(
    { origin: upstream, path: '/v1/chat/completions', method: 'POST', headers: ['content-type', 'application/json', 'accept', String(req.headers.accept ?? '*/*')], body },
    handler,
  );
});
