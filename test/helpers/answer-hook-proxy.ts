import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A loopback proxy in front of an emulator: each request goes through as it is, and its answer comes back only
 * after `beforeAnswer` has run, with the remote's state already changed. So a test can make something happen at the
 * one moment between a remote taking a write and the client hearing of it (Redis killed just as HubSpot took a batch).
 */
export async function answerHookProxy(
  target: string,
  beforeAnswer: (req: { method: string; path: string; status: number }) => Promise<void>,
): Promise<{ url: string; close: () => Promise<void> }> {
  const server: Server = createServer((req, res) => {
    void forward(target, req, beforeAnswer).then(
      ({ status, headers, body }) => res.writeHead(status, headers).end(body),
      () => res.destroy(),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Headers that describe one hop's framing: the proxy frames its answer itself. */
const HOP = new Set(['connection', 'content-length', 'transfer-encoding', 'content-encoding', 'keep-alive', 'host']);

async function forward(
  target: string,
  req: IncomingMessage,
  beforeAnswer: (req: { method: string; path: string; status: number }) => Promise<void>,
): Promise<{ status: number; headers: Record<string, string>; body: Buffer }> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const method = req.method ?? 'GET';
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string' && !HOP.has(k)) headers[k] = v;
  const answer = await fetch(new URL(req.url ?? '/', target), {
    method,
    headers,
    ...(method === 'GET' || method === 'HEAD' ? {} : { body: Buffer.concat(chunks) }),
  });
  const body = Buffer.from(await answer.arrayBuffer());
  await beforeAnswer({ method, path: new URL(req.url ?? '/', target).pathname, status: answer.status });
  const back: Record<string, string> = {};
  answer.headers.forEach((v, k) => {
    if (!HOP.has(k)) back[k] = v;
  });
  return { status: answer.status, headers: back, body };
}
