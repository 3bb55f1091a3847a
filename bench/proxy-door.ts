import http from 'node:http';
import { timingSafeEqual } from 'node:crypto';

/**
 * The front of the chat benchmark's floors (bench/chat-proxy.ts, bench/chat-recording-proxy.ts):
 * the bearer key compared in constant time (a 401 in OpenAI's words otherwise), the body read
 * whole, then `onBody`. Listens on 127.0.0.1 and prints `listening on <url>`; SIGTERM closes it.
 */
export function serveProxy(key: string, onBody: (req: http.IncomingMessage, res: http.ServerResponse, body: Buffer) => void): void {
  const expected = Buffer.from(`Bearer ${key}`);
  const authorized = (header: string | undefined) => {
    const presented = Buffer.from(header ?? '');
    return presented.length === expected.length && timingSafeEqual(presented, expected);
  };
  const server = http.createServer((req, res) => {
    if (!authorized(req.headers.authorization)) {
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":{"message":"Incorrect API key provided."}}');
      return;
    }
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => onBody(req, res, Buffer.concat(parts)));
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => console.log(`listening on http://127.0.0.1:${(server.address() as { port: number }).port}`));
  process.on('SIGTERM', () => server.close(() => process.exit(0)));
}
