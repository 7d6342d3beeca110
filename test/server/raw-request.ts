import { request } from 'node:http';

export interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export interface RawRequest {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  /** Source address of the connection (any 127.x.y.z on Linux): another client, as the server sees it. */
  localAddress?: string;
}

/**
 * One HTTP request over node:http: unlike fetch it sends any `Host` and `Origin` header as given and lets a test
 * pick the client's address.
 */
export function rawRequest(url: string, opts: RawRequest = {}): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: opts.method ?? 'GET',
      headers: {
        ...(opts.body !== undefined ? { 'content-length': String(Buffer.byteLength(opts.body)) } : {}),
        ...opts.headers,
      },
      ...(opts.localAddress ? { localAddress: opts.localAddress } : {}),
      timeout: 20_000,
    });
    req.on('timeout', () => req.destroy(new Error(`no answer from ${url} within 20 s`)));
    req.on('error', reject);
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }),
      );
      res.on('error', reject);
    });
    req.end(opts.body);
  });
}
