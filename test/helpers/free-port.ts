import net from 'node:net';

/** a port free on 127.0.0.1 now: for a server whose address must be known before it listens (gateway.publicUrl) */
export const freePort = (): Promise<number> =>
  new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
