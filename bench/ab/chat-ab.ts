/**
 * herald's CPU per chat completion, this checkout's against another's, on a machine too busy for
 * two separate runs to compare: both heralds run at once, fronting one upstream
 * (bench/chat-upstream.ts), and their loads alternate every `BENCH_SLICE` seconds (plain, then
 * streamed, one connection each, as platform.bench.ts's sequential rows), each herald in turn,
 * so a change in the machine's load meets both alike. CPU from /proc, summed over all slices.
 *
 * `BENCH_BEFORE=<checkout> node --import tsx bench/ab/chat-ab.ts`. Env: BENCH_SLICES (20),
 * BENCH_SLICE (1 s), BENCH_PREWARM (10 s, bench/chat-prewarm.ts), BENCH_CHAT_CONNECTIONS (1),
 * BENCH_CHAT_STORE=0 (completions sent with `store: false`: only the usage record kept).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { alternatingSlices, perRequest, summed } from './ab-slices.js';
import { startChildServer, type ChildServer } from '../child-server.js';
import { prewarmChat, prewarmSeconds } from '../chat-prewarm.js';
import { runLoad } from '../load.js';
import { API_KEY, chatBody, startHerald } from '../platform.bench.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
if (!process.env.BENCH_BEFORE) throw new Error('BENCH_BEFORE=<checkout> names the herald to compare against');
const before = path.resolve(process.env.BENCH_BEFORE);
const slices = Number(process.env.BENCH_SLICES ?? 20);
const slice = Number(process.env.BENCH_SLICE ?? 1);
const connections = Number(process.env.BENCH_CHAT_CONNECTIONS ?? 1);
const store = process.env.BENCH_CHAT_STORE !== '0';
const headers = { 'content-type': 'application/json', authorization: `Bearer ${API_KEY}` };
const kinds = [false, true] as const;

const upstream = await startChildServer({ name: 'upstream', args: ['--import', 'tsx', path.join(ROOT, 'bench/chat-upstream.ts')], cwd: ROOT });
const heralds: { name: string; pid: number; server: ChildServer }[] = [];
try {
  for (const [name, root] of [['before', before], ['now', ROOT]] as const) {
    const server = await startHerald(root, name, upstream, []);
    heralds.push({ name, pid: server.pid, server });
  }
  for (const { server } of heralds) await prewarmChat(server, headers, { plain: chatBody(false, store), streamed: chatBody(true, store) }, 10, prewarmSeconds());
  const counts = await alternatingSlices(heralds, kinds, slices, (h, stream) =>
    runLoad({ url: h.server.url, path: '/v1/chat/completions', headers, body: chatBody(stream, store), connections, durationSeconds: slice }),
  );
  const perCompletion = (h: (typeof heralds)[number], stream: boolean) => perRequest(counts.get(h)!.get(stream)!);
  const completions = (h: (typeof heralds)[number], stream: boolean) => summed(counts.get(h)!.get(stream)!).requests;
  for (const h of heralds) {
    console.log(`${h.name}: CPU ms per completion at ${connections} connection(s), plain ${perCompletion(h, false).toFixed(3)} (${completions(h, false)}), streamed ${perCompletion(h, true).toFixed(3)} (${completions(h, true)})`);
  }
  const [b, n] = heralds;
  console.log(`now / before: plain ${(perCompletion(n!, false) / perCompletion(b!, false)).toFixed(3)}, streamed ${(perCompletion(n!, true) / perCompletion(b!, true)).toFixed(3)}`);
} finally {
  for (const { server } of heralds) await server.stop(10_000);
  await upstream.stop();
}
