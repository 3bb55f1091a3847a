import { runLoad } from './load.js';
import { waitUntilIdle } from './process-stats.js';

/**
 * How long each chat server is loaded once before its first measured row: `BENCH_PREWARM`
 * seconds (default 10). V8 keeps optimising a server's request path for thousands of requests
 * (a gateway's path is more code than a bare proxy's, so it settles later), and a gateway in
 * service has long since settled; a row measured after a short warm-up would count that compiling
 * as the request's cost. Every server gets the same, upstream and bare proxy included.
 */
export const prewarmSeconds = (env: NodeJS.ProcessEnv = process.env) => Number(env.BENCH_PREWARM ?? 10);

/** half the time plain, half streamed, at `connections`; then waits until the server is idle */
export async function prewarmChat(server: { url: string; pid: number }, headers: Record<string, string>, bodies: { plain: string; streamed: string }, connections: number, seconds: number): Promise<void> {
  if (seconds <= 0) return;
  for (const body of [bodies.plain, bodies.streamed]) {
    await runLoad({ url: server.url, path: '/v1/chat/completions', headers: { 'content-type': 'application/json', ...headers }, body, connections, durationSeconds: seconds / 2 });
  }
  await waitUntilIdle(server.pid);
}
