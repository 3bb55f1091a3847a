import net from 'node:net';

/**
 * A TCP relay on 127.0.0.1 in front of a real server (PostgreSQL): `cut()` drops every
 * connection and refuses new ones, as a database host going away would; `restore()` listens
 * again on the same port, as the host coming back.
 */
export interface TcpProxy {
  port: number;
  cut(): Promise<void>;
  restore(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(target.port, target.host);
    sockets.add(client).add(upstream);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.pipe(upstream).pipe(client);
  });
  const listen = (port: number) => new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve((server.address() as net.AddressInfo).port));
  });
  const port = await listen(0);
  const stop = () => new Promise<void>((resolve) => {
    for (const s of sockets) s.destroy();
    sockets.clear();
    if (!server.listening) return resolve();
    server.close(() => resolve());
  });
  return {
    port,
    cut: stop,
    async restore() {
      await listen(port);
    },
    close: stop,
  };
}
