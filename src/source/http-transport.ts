/**
 * One HTTP exchange over undici with a keep-alive Agent: a deadline per attempt combined with the caller's
 * AbortSignal, a bounded answer, JSON in and out. Transport failures become SourceNetworkError (or SourceAbortedError
 * when the caller aborted); an answer past its size bound, ResponseTooLargeError.
 */
import { Agent, request } from 'undici';
import { announcesMoreThan, readBounded, ResponseTooLargeError } from '../shared/bounded-body.js';
import { SourceAbortedError, SourceNetworkError, SourceProtocolError } from './errors.js';
import type { ResponseHeaders } from './response-headers.js';

// Failures that prove the request never reached the server; any other failure may come after it was served.
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT']);

/** Largest API answer read: a page of 100 fully rendered persons is far below it. */
export const MAX_API_ANSWER_BYTES = 16 * 1024 * 1024;

export interface HttpResponse {
  status: number;
  headers: ResponseHeaders;
  /** Parsed JSON; null when the body is empty, or is not JSON on an error status (its text is never kept). */
  body: unknown;
}

export interface HttpRequest {
  method: 'GET' | 'POST';
  url: URL;
  headers: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
  /** Largest answer read from this request; default the transport's. */
  maxBytes?: number;
}

export class HttpTransport {
  private readonly agent: Agent;

  constructor(
    private readonly timeoutMs: number,
    connections: number,
    private readonly maxBytes = MAX_API_ANSWER_BYTES,
  ) {
    this.agent = new Agent({
      connections,
      keepAliveTimeout: 30_000,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
  }

  async send(req: HttpRequest): Promise<HttpResponse> {
    if (req.signal?.aborted) throw new SourceAbortedError(req.signal.reason);
    // A timer cleared with the answer (AbortSignal.timeout would keep its timer and signal alive for the whole
    // timeout after every request: thousands of live timers in a fast run). It covers the whole body too.
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(new Error('timeout')), this.timeoutMs).unref();
    const signal = req.signal ? AbortSignal.any([req.signal, timeout.signal]) : timeout.signal;
    const maxBytes = req.maxBytes ?? this.maxBytes;
    const what = `${req.method} ${req.url.origin}${req.url.pathname}`;
    try {
      const res = await request(req.url, {
        method: req.method,
        headers: req.headers,
        body: req.body,
        signal,
        dispatcher: this.agent,
      });
      if (announcesMoreThan(res.headers['content-length'], maxBytes)) {
        res.body.destroy();
        throw new ResponseTooLargeError(`the API (${what})`, maxBytes);
      }
      const text = await readBounded(res.body, maxBytes, `the API (${what})`, () => res.body.destroy());
      return {
        status: res.statusCode,
        headers: res.headers,
        body: parseBody(text, res.statusCode, res.headers['content-type']),
      };
    } catch (error) {
      if (error instanceof SourceProtocolError || error instanceof ResponseTooLargeError) throw error;
      const sent = !NOT_SENT_CODES.has((error as { code?: string }).code ?? '');
      if (req.signal?.aborted) throw new SourceAbortedError(req.signal.reason, sent);
      const why = timeout.signal.aborted ? `timed out after ${this.timeoutMs} ms` : (error as Error).message;
      // Only the origin and path: a URL never carries secrets here, but keep messages short and stable.
      throw new SourceNetworkError(`${what} failed: ${why}`, error, sent);
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}

/** The body as JSON. Not JSON: a protocol error on a 2xx, nothing on an error status; never the remote's text. */
function parseBody(text: string, status: number, contentType: string | string[] | undefined): unknown {
  if (text.length === 0) return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    if (status >= 200 && status < 300) {
      const type = (Array.isArray(contentType) ? contentType[0] : contentType) ?? 'no content type';
      throw new SourceProtocolError(
        `expected a JSON body, got ${type.split(';')[0]} (${Buffer.byteLength(text)} bytes, HTTP ${status})`,
      );
    }
    return null;
  }
}
