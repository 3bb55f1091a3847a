/**
 * Time to the first streamed token, in its own process (spawned by bench/platform.bench.ts):
 * sends `count` streamed chat completions one after another over one kept-alive connection and
 * times each from the request's last byte to the first SSE chunk carrying answer text (a
 * non-empty `delta.content`; herald's own role chunk goes out before the model answers and does
 * not count). Options as one JSON line on argv[2]; prints the sorted times (ms) as one JSON line.
 */
import http from 'node:http';

interface ProbeOptions {
  url: string;
  headers: Record<string, string>;
  body: string;
  count: number;
}

const options = JSON.parse(process.argv[2] ?? '{}') as ProbeOptions;
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const FIRST_TOKEN = /"content":"[^"]/;

function once(): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(options.url, { method: 'POST', agent, headers: { 'content-type': 'application/json', ...options.headers } }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`status ${res.statusCode}`));
      let text = '';
      let firstAt: number | undefined;
      res.setEncoding('utf8');
      res.on('data', (part: string) => {
        if (firstAt !== undefined) return;
        text += part;
        if (FIRST_TOKEN.test(text)) firstAt = performance.now();
      });
      res.on('end', () => (firstAt === undefined ? reject(new Error('no token in the stream')) : resolve(firstAt - sentAt)));
      res.on('error', reject);
    });
    req.on('error', reject);
    let sentAt = 0;
    req.end(options.body, () => (sentAt = performance.now()));
  });
}

const times: number[] = [];
for (let i = 0; i < options.count; i++) times.push(await once());
agent.destroy();
process.stdout.write(`${JSON.stringify(times.sort((a, b) => a - b))}\n`);
