import http from 'node:http';

/**
 * A collector that takes OTLP/HTTP exports and drops them (200, as a collector that accepted every
 * span answers): what herald's tracing costs is measured against an endpoint that answers at once.
 */
export async function startOtlpSink(): Promise<{ url: string; spansBytes: () => number; close(): Promise<void> }> {
  let bytes = 0;
  const server = http.createServer((req, res) => {
    req.on('data', (chunk: Buffer) => (bytes += chunk.byteLength));
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  // the benchmark ends when its measurements do, not when the sink would
  server.unref();
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, spansBytes: () => bytes, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
