/** Small node:http helpers: JSON replies and bounded body reading. */
import type { IncomingMessage, ServerResponse } from 'node:http';

export interface Reply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
  /** Filler appended inside the JSON object, sent chunked without Content-Length (the bent-pages fault). */
  padBytes?: number;
}

const MAX_BODY_BYTES = 1_000_000;

export class BodyTooLargeError extends Error {}

export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new BodyTooLargeError('body too large'));
        req.destroy();
      } else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

export function sendReply(res: ServerResponse, reply: Reply): void {
  if (reply.padBytes !== undefined) return sendPadded(res, reply, reply.padBytes);
  const payload = JSON.stringify(reply.body);
  res.writeHead(reply.status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(payload),
    ...reply.headers,
  });
  res.end(payload);
}

export function message(status: number, text: string, headers?: Record<string, string>): Reply {
  return { status, body: { message: text }, ...(headers ? { headers } : {}) };
}

/** `{"padding":"xxx…", …body}` in 1 MB chunks, each written when the client takes it (it may hang up any time). */
function sendPadded(res: ServerResponse, reply: Reply, padBytes: number): void {
  res.writeHead(reply.status, { 'Content-Type': 'application/json; charset=utf-8', ...reply.headers });
  const rest = JSON.stringify(reply.body).slice(1);
  const chunk = 'x'.repeat(1024 * 1024);
  let left = padBytes;
  const pump = (): void => {
    while (left > 0 && !res.destroyed) {
      const n = Math.min(left, chunk.length);
      left -= n;
      const piece = (left + n === padBytes ? '{"padding":"' : '') + chunk.slice(0, n);
      if (!res.write(piece)) return void res.once('drain', pump);
    }
    if (!res.destroyed) res.end(`",${rest}`);
  };
  pump();
}
