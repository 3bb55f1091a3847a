/**
 * herald's CPU per chat completion against both floors of the platform benchmark, the bare proxy
 * (bench/chat-proxy.ts) and the recording proxy (bench/chat-recording-proxy.ts), plain and
 * streamed: the three servers loaded in turn every `BENCH_SLICE` seconds for `BENCH_SLICES`
 * slices, pinned to one CPU (ab-slices.ts). The platform benchmark measures each row once, minutes
 * after the others, and on a shared VM a server's sequential figure moves by more than a third
 * from one minute to the next; taken in turn, the ratios between the servers hold still.
 *
 * `node --import tsx bench/ab/chat-floors-ab.ts`. Env: BENCH_SLICES (20), BENCH_SLICE (1 s),
 * BENCH_PREWARM (10 s, bench/chat-prewarm.ts), BENCH_CHAT_CONNECTIONS (1).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { alternatingSlices, perRequest, summed } from './ab-slices.js';
import { startChildServer, type ChildServer } from '../child-server.js';
import { prewarmChat, prewarmSeconds } from '../chat-prewarm.js';
import { runLoad } from '../load.js';
import { API_KEY, chatBody, startHerald } from '../platform.bench.js';
import { startRecordingProxy } from '../start-recording-proxy.js';
import { formatTable } from '../table.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const slices = Number(process.env.BENCH_SLICES ?? 20);
const slice = Number(process.env.BENCH_SLICE ?? 1);
const connections = Number(process.env.BENCH_CHAT_CONNECTIONS ?? 1);
const headers = { 'content-type': 'application/json', authorization: `Bearer ${API_KEY}` };
/** `stream`: plain, then streamed */
const kinds = [false, true] as const;

const upstream = await startChildServer({ name: 'upstream', args: ['--import', 'tsx', path.join(ROOT, 'bench/chat-upstream.ts')], cwd: ROOT });
const servers: { name: string; pid: number; server: ChildServer }[] = [];
try {
  for (const [name, start] of [
    ['bare proxy', () => startChildServer({ name: 'proxy', args: ['--import', 'tsx', path.join(ROOT, 'bench/chat-proxy.ts'), upstream.url, API_KEY], cwd: ROOT })],
    ['recording proxy', () => startRecordingProxy(upstream, API_KEY)],
    ['herald', () => startHerald(ROOT, 'herald', upstream, [])],
  ] as const) {
    const server = await start();
    servers.push({ name, pid: server.pid, server });
  }
  for (const { server } of servers) await prewarmChat(server, headers, { plain: chatBody(false), streamed: chatBody(true) }, 10, prewarmSeconds());
  const counts = await alternatingSlices(servers, kinds, slices, (s, stream) =>
    runLoad({ url: s.server.url, path: '/v1/chat/completions', headers, body: chatBody(stream), connections, durationSeconds: slice }),
  );
  const cpu = (name: string, stream: boolean) => perRequest(counts.get(servers.find((s) => s.name === name)!)!.get(stream)!);
  const rows = servers.flatMap((s) =>
    kinds.map((stream) => {
      const own = cpu(s.name, stream);
      return [
        s.name,
        stream ? 'streamed' : 'plain',
        summed(counts.get(s)!.get(stream)!).requests,
        own.toFixed(3),
        `${(own / cpu('bare proxy', stream)).toFixed(2)}x`,
        `${(own / cpu('recording proxy', stream)).toFixed(2)}x`,
      ];
    }),
  );
  console.log(`CPU per completion at ${connections} connection(s), ${slices} slices of ${slice} s each, the servers in turn:`);
  console.log(formatTable(['server', 'completion', 'completions', 'CPU ms', '× the bare proxy', '× the recording proxy'], rows));
} finally {
  for (const { server } of servers) await server.stop(10_000);
  await upstream.stop();
}
