/**
 * What `store: false` saves a chat completion, on herald and on the recording proxy
 * (bench/chat-recording-proxy.ts, which keeps the same records the same way): each server
 * loaded in turn with the default body and with `store: false`, every `BENCH_SLICE` seconds for
 * `BENCH_SLICES` slices, so the two bodies meet the same machine. A sequential row scatters by
 * more than the difference between two rows measured minutes apart; slices taken in turn do not.
 *
 * `node --import tsx bench/ab/chat-store-ab.ts`. Env: BENCH_SLICES (20), BENCH_SLICE (1 s),
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

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const slices = Number(process.env.BENCH_SLICES ?? 20);
const slice = Number(process.env.BENCH_SLICE ?? 1);
const connections = Number(process.env.BENCH_CHAT_CONNECTIONS ?? 1);
const headers = { 'content-type': 'application/json', authorization: `Bearer ${API_KEY}` };
/** the body's `store`: kept (the default), then not */
const kinds = [true, false] as const;

const upstream = await startChildServer({ name: 'upstream', args: ['--import', 'tsx', path.join(ROOT, 'bench/chat-upstream.ts')], cwd: ROOT });
const servers: { name: string; pid: number; server: ChildServer }[] = [];
try {
  for (const [name, start] of [
    ['recording proxy', () => startRecordingProxy(upstream, API_KEY)],
    ['herald', () => startHerald(ROOT, 'herald', upstream, [])],
  ] as const) {
    const server = await start();
    servers.push({ name, pid: server.pid, server });
  }
  for (const { server } of servers) {
    for (const store of kinds) await prewarmChat(server, headers, { plain: chatBody(false, store), streamed: chatBody(true, store) }, 10, prewarmSeconds() / 2);
  }
  const counts = await alternatingSlices(servers, kinds, slices, (s, store) =>
    runLoad({ url: s.server.url, path: '/v1/chat/completions', headers, body: chatBody(false, store), connections, durationSeconds: slice }),
  );
  for (const s of servers) {
    const of = (store: boolean) => counts.get(s)!.get(store)!;
    const [kept, notKept] = [perRequest(of(true)), perRequest(of(false))];
    console.log(
      `${s.name}, ${connections} connection(s): CPU ms per plain completion ${kept.toFixed(3)} (${summed(of(true)).requests}), ` +
        `with store: false ${notKept.toFixed(3)} (${summed(of(false)).requests}); store: false / default ${(notKept / kept).toFixed(3)}`,
    );
  }
} finally {
  for (const { server } of servers) await server.stop(10_000);
  await upstream.stop();
}
