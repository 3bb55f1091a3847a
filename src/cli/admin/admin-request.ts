import http from 'node:http';

/**
 * One HTTP exchange of a command with the gateway, on node:http (node:https loaded only for an
 * https URL, e.g. a gateway behind a proxy). Node's fetch would load undici first: a quarter of a
 * second of CPU on a busy machine, more than the rest of such a command's start
 * (docs/performance.md#the-cli). Rejects with the socket's error (its `code`: ECONNREFUSED, ...).
 */
export async function exchange(url: string, method: string, headers: Record<string, string>, body?: string): Promise<{ status: number; text: string }> {
  const target = new URL(url);
  const transport = target.protocol === 'https:' ? await import('node:https') : http;
  return new Promise((resolve, reject) => {
    const request = transport.request(target, { method, headers: { ...headers, ...(body !== undefined && { 'content-length': String(Buffer.byteLength(body)) }) } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end(body);
  });
}
