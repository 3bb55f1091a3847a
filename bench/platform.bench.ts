/**
 * Platform API benchmark: what herald adds on top of the model it fronts, and how fast the
 * knowledge index ingests and searches a generated corpus of ~100,000 chunks.
 * Standalone: `node --import tsx bench/platform.bench.ts`; `bench/run.ts` calls `run()`.
 * Figures are printed, never asserted: they depend on the machine.
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import autocannon from 'autocannon';
import { startChildServer } from './child-server.js';
import { knowledgeSpeed, printKnowledgeSpeed, type SearchFigures } from './knowledge-search.bench.js';

const API_KEY = 'sk-bench-0123456789abcdef';

export interface PlatformBenchResult {
  chat: { direct: Figures; herald: Figures; overheadMsP50: number };
  ingest: { chunks: number; seconds: number; chunksPerSecond: number };
  search: SearchFigures;
  frequentSearch: SearchFigures;
}

interface Figures {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
}

/** a minimal OpenAI-compatible upstream answering at once */
async function startUpstream(): Promise<{ url: string; close(): Promise<void> }> {
  const body = JSON.stringify({
    id: 'chatcmpl-bench',
    object: 'chat.completion',
    created: 1,
    model: 'bench',
    choices: [{ index: 0, message: { role: 'assistant', content: 'fine, thanks' }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 10, completion_tokens: 2, total_tokens: 12 },
  });
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    close: () => new Promise((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

async function load(url: string, headers: Record<string, string>, seconds: number): Promise<Figures> {
  const result = await autocannon({
    url,
    method: 'POST',
    connections: 10,
    duration: seconds,
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ model: 'agent', messages: [{ role: 'user', content: 'How are you today?' }] }),
  });
  if (result.non2xx) throw new Error(`${result.non2xx} non-2xx answers from ${url}`);
  return { requestsPerSecond: Math.round(result.requests.average), p50Ms: result.latency.p50, p99Ms: result.latency.p99 };
}

async function chatOverhead(seconds: number): Promise<PlatformBenchResult['chat']> {
  const upstream = await startUpstream();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-bench-'));
  const configFile = path.join(dir, 'herald.json');
  fs.writeFileSync(
    configFile,
    JSON.stringify({
      gateway: { host: '127.0.0.1', port: 0 },
      storage: { sqlite: './herald.db' },
      heartbeat: { every: '0' },
      models: { providers: { up: { api: 'openai', baseUrl: `${upstream.url}/v1` } } },
      agents: { list: [{ id: 'agent', model: 'up/bench', instructions: 'Be brief.' }] },
      platform: { apiKeys: [{ name: 'bench', key: API_KEY }], rateLimit: { requestsPerMinute: 1_000_000_000 } },
    }),
  );
  // herald runs in its own process (as in production); the upstream and the load generator share this one
  const herald = await startChildServer({ name: 'herald', args: ['bin/herald.mjs', 'serve', '--config', configFile], cwd: process.cwd() });
  try {
    const direct = await load(`${upstream.url}/v1/chat/completions`, {}, seconds);
    const through = await load(`${herald.url}/v1/chat/completions`, { authorization: `Bearer ${API_KEY}` }, seconds);
    return { direct, herald: through, overheadMsP50: through.p50Ms - direct.p50Ms };
  } finally {
    await herald.stop();
    await upstream.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** a deterministic pseudo-random generator, so every run indexes the same corpus */
export async function run(options: { seconds?: number; documents?: number; chunksPerDocument?: number; queries?: number } = {}): Promise<PlatformBenchResult> {
  const chat = await chatOverhead(options.seconds ?? 5);
  console.log('platform: POST /v1/chat/completions, 10 connections, an OpenAI-compatible upstream answering at once');
  console.log(`  upstream direct : ${chat.direct.requestsPerSecond} req/s, p50 ${chat.direct.p50Ms} ms, p99 ${chat.direct.p99Ms} ms`);
  console.log(`  through herald  : ${chat.herald.requestsPerSecond} req/s, p50 ${chat.herald.p50Ms} ms, p99 ${chat.herald.p99Ms} ms`);
  console.log(`  overhead (p50)  : ${chat.overheadMsP50} ms per completion under this load (auth, retrieval, conversation writes, proxying)`);
  console.log(`  herald time    : ~${(1000 / Math.max(1, chat.herald.requestsPerSecond)).toFixed(1)} ms of its event loop per completion (1000 / req/s)`);
  const kb = await knowledgeSpeed(options.documents ?? 100, options.chunksPerDocument ?? 1000, options.queries ?? 500);
  printKnowledgeSpeed(kb);
  return { chat, ...kb };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  run().then(
    () => process.exit(0),
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
}
