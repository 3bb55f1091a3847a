/**
 * The chat benchmark's floor: a bare proxy in its own process that makes the same two hops herald
 * makes (the client to it, it to the upstream) and nothing else: the bearer key compared, the
 * body forwarded as it came, the upstream's answer written back piece by piece as it arrives,
 * through the same client library herald uses (undici's dispatcher). No parse, no agent, no
 * store. What it adds to a completion and to the first streamed token is what any gateway pays
 * on this machine for being in the path; herald's figures above it are herald's own.
 * Usage: `node --import tsx bench/chat-proxy.ts <upstream origin> <key>`; prints `listening on <url>`.
 */
import { Agent, type Dispatcher } from 'undici';
import { serveProxy } from './proxy-door.js';

const [upstream, key] = process.argv.slice(2) as [string, string];
const dispatcher = new Agent({ headersTimeout: 0, bodyTimeout: 0 });

serveProxy(key, (req, res, body) => {
  const handler: Dispatcher.DispatchHandler = {
    // undici takes a handler without it for its older interface
    onRequestStart() {},
    onResponseStart(_controller, status, headers) {
      res.writeHead(status, { 'content-type': String(headers['content-type'] ?? 'application/json') });
    },
    onResponseData(_controller, chunk) {
      res.write(chunk);
    },
    onResponseEnd() {
      res.end();
    },
    onResponseError(_controller, error) {
      if (res.headersSent) res.destroy(error);
      else res.writeHead(502, { 'content-type': 'application/json' }).end('{"error":{"message":"upstream failed"}}');
    },
  };
  dispatcher.dispatch(
    { origin: upstream, path: '/v1/chat/completions', method: 'POST', headers: ['content-type', 'application/json', 'accept', String(req.headers.accept ?? '*/*')], body },
    handler,
  );
});
