/** Small node:http helpers: JSON replies and bounded body reading. */
import type { IncomingMessage, ServerResponse } from 'node:http';

export interface Reply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
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
