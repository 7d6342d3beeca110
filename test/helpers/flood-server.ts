import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A raw server answering every request 200 with `bytes` of JSON-looking filler, chunked (no Content-Length) or
 * announced; it stands in for a misbehaving remote (no faithful emulator sends this). `sent` counts what it wrote.
 */
export async function floodServer(
  bytes: number,
  announced: boolean,
): Promise<{ url: string; sent: () => number; close: () => Promise<void> }> {
  let sent = 0;
  const server: Server = createServer((req, res) => {
    req.resume();
    res.writeHead(200, {
      'content-type': 'application/json',
      ...(announced ? { 'content-length': String(bytes) } : {}),
    });
    const chunk = Buffer.alloc(1024 * 1024, 'x');
    const pump = (): void => {
      while (sent < bytes && !res.destroyed) {
        sent += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', pump);
      }
      res.end();
    };
    pump();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    sent: () => sent,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
