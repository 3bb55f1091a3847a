import http from 'node:http';

export interface RecordedRequest {
  method: string;
  /** path with query */
  url: string;
  path: string;
  query: Record<string, string>;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** the body parsed as JSON, when it is JSON */
  json: any;
}

export type FakeResponse = { status?: number; headers?: Record<string, string>; body?: unknown; delayMs?: number } | 'hang' | 'destroy';
export type FakeHandler = (request: RecordedRequest) => FakeResponse | Promise<FakeResponse>;

export interface FakeServer {
  url: string;
  requests: RecordedRequest[];
  /** replaces the handler (e.g. to make the platform fail, then recover) */
  handle(handler: FakeHandler): void;
  close(): Promise<void>;
}

/**
 * A fake of an outside HTTP API (Telegram, Slack, an OpenAI-compatible server, Google...):
 * a real server on 127.0.0.1 that records every request and answers with `handler`.
 */
export async function startFakeServer(handler: FakeHandler = () => ({ body: { ok: true } })): Promise<FakeServer> {
  let current = handler;
  const requests: RecordedRequest[] = [];
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    let json: unknown;
    try {
      json = body ? JSON.parse(body) : undefined;
    } catch {
      json = undefined;
    }
    const recorded: RecordedRequest = {
      method: req.method ?? 'GET',
      url: req.url ?? '/',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers: req.headers,
      body,
      json,
    };
    requests.push(recorded);
    const answer = await current(recorded);
    if (answer === 'hang') return;
    if (answer === 'destroy') {
      req.socket.destroy();
      return;
    }
    if (answer.delayMs) await new Promise((r) => setTimeout(r, answer.delayMs));
    // bytes as they are (a DER certificate), a string as text, anything else as JSON
    const payload = typeof answer.body === 'string' || Buffer.isBuffer(answer.body) ? answer.body : JSON.stringify(answer.body ?? {});
    res.writeHead(answer.status ?? 200, { 'content-type': 'application/json', ...answer.headers });
    res.end(payload);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    handle(next) {
      current = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
