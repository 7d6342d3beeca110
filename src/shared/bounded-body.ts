/**
 * Answers are read with a size bound: a remote that sends more than it reasonably can (a broken proxy, a hostile or
 * buggy server) is cut off with a clear error instead of growing the worker's heap.
 */
import { AppError } from './app-error.js';

/** A remote's answer passed the size this worker reads from it; the connection was dropped. */
export class ResponseTooLargeError extends AppError {
  constructor(remote: string, maxBytes: number) {
    super('response_too_large', `${remote} sent an answer larger than ${maxBytes} bytes; it was not read`, {
      details: { remote, maxBytes },
    });
  }
}

/** Whether a Content-Length header already announces more than `maxBytes`. */
export function announcesMoreThan(contentLength: string | string[] | undefined | null, maxBytes: number): boolean {
  const raw = Array.isArray(contentLength) ? contentLength[0] : contentLength;
  const n = raw === undefined || raw === null ? Number.NaN : Number(raw);
  return Number.isFinite(n) && n > maxBytes;
}

/**
 * Reads a body stream to a UTF-8 string, throwing ResponseTooLargeError once more than `maxBytes` arrived (the caller
 * then destroys the stream: `onTooLarge`).
 */
export async function readBounded(
  body: AsyncIterable<Uint8Array | string>,
  maxBytes: number,
  remote: string,
  onTooLarge?: () => void,
): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const buf =
      typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    size += buf.byteLength;
    if (size > maxBytes) {
      onTooLarge?.();
      throw new ResponseTooLargeError(remote, maxBytes);
    }
    chunks.push(buf);
  }
  return Buffer.concat(chunks).toString('utf8');
}
