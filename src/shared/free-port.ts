import { createServer } from 'node:net';

/** A loopback TCP port free right now (bound, read, closed): for a private redis-server or a closed-port probe. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}
