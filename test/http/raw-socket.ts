import net from 'node:net';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * Speaks HTTP/1.1 over a bare socket, for what fetch cannot do: a chunked body that
 * outgrows the limit, or a body that stops arriving. `parts` are written in order;
 * after the last one the socket stays open (a stalled sender) unless `end` is set.
 */
export function rawRequest(url: string, head: string, parts: (string | Buffer)[], options: { end?: boolean } = {}): Promise<RawResponse> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname);
    let received = '';
    let settled = false;
    const finish = () => {
      if (settled) return;
      const parsed = parseResponse(received);
      if (!parsed) return;
      settled = true;
      socket.destroy();
      resolve(parsed);
    };
    socket.on('connect', async () => {
      socket.write(head.replace(/\r?\n/g, '\r\n').replace(/(\r\n)*$/, '\r\n\r\n'));
      for (const part of parts) {
        if (socket.destroyed || settled) return;
        await new Promise<void>((r) => socket.write(part, () => r()));
      }
      if (options.end) socket.end();
    });
    socket.on('data', (chunk) => {
      received += chunk.toString('utf8');
      finish();
    });
    socket.on('error', (error) => {
      if (!settled) {
        const parsed = parseResponse(received);
        if (parsed) {
          settled = true;
          resolve(parsed);
        } else reject(error);
      }
    });
    socket.on('close', () => {
      if (!settled) {
        const parsed = parseResponse(received);
        settled = true;
        if (parsed) resolve(parsed);
        else reject(new Error(`connection closed without a complete response: ${JSON.stringify(received)}`));
      }
    });
  });
}

/** a complete response (content-length or chunked body), or undefined while more is due */
function parseResponse(text: string): RawResponse | undefined {
  const split = text.indexOf('\r\n\r\n');
  if (split < 0) return undefined;
  const [statusLine, ...lines] = text.slice(0, split).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const i = line.indexOf(':');
    headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
  }
  let body = text.slice(split + 4);
  if (headers['transfer-encoding'] === 'chunked') {
    if (!body.includes('0\r\n\r\n')) return undefined;
    let out = '';
    let rest = body;
    for (;;) {
      const eol = rest.indexOf('\r\n');
      const size = parseInt(rest.slice(0, eol), 16);
      if (!size) break;
      out += rest.slice(eol + 2, eol + 2 + size);
      rest = rest.slice(eol + 2 + size + 2);
    }
    body = out;
  } else if (headers['content-length'] !== undefined) {
    const length = Number(headers['content-length']);
    if (Buffer.byteLength(body) < length) return undefined;
  }
  return { status: Number(statusLine!.split(' ')[1]), headers, body };
}

/** one HTTP chunk of a chunked body */
export function chunk(data: string): string {
  return `${Buffer.byteLength(data).toString(16)}\r\n${data}\r\n`;
}
