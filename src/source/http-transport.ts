/**
 * One HTTP exchange over undici with a keep-alive Agent: timeouts, AbortSignal, JSON in and out.
 * Transport failures become SourceNetworkError (or SourceAbortedError when the caller aborted).
 */
import { Agent, request } from 'undici';
import { SourceAbortedError, SourceNetworkError, SourceProtocolError } from './errors.js';
import type { ResponseHeaders } from './response-headers.js';

// Failures that prove the request never reached the server; any other failure may come after it was served.
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT']);

export interface HttpResponse {
  status: number;
  headers: ResponseHeaders;
  /** Parsed JSON, or the raw text when the body is not JSON (null when empty). */
  body: unknown;
}

export interface HttpRequest {
  method: 'GET' | 'POST';
  url: URL;
  headers: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
}

export class HttpTransport {
  private readonly agent: Agent;

  constructor(private readonly timeoutMs: number, connections: number) {
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
    // timeout after every request: thousands of live timers in a fast run).
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(new Error('timeout')), this.timeoutMs).unref();
    const signal = req.signal ? AbortSignal.any([req.signal, timeout.signal]) : timeout.signal;
    try {
      const res = await request(req.url, {
        method: req.method,
        headers: req.headers,
        body: req.body,
        signal,
        dispatcher: this.agent,
      });
      const text = await res.body.text();
      return { status: res.statusCode, headers: res.headers, body: parseBody(text, res.statusCode) };
    } catch (error) {
      if (error instanceof SourceProtocolError) throw error;
      const sent = !NOT_SENT_CODES.has((error as { code?: string }).code ?? '');
      if (req.signal?.aborted) throw new SourceAbortedError(req.signal.reason, sent);
      const what = timeout.signal.aborted ? `timed out after ${this.timeoutMs} ms` : (error as Error).message;
      // Only the origin: a URL never carries secrets here, but keep messages short and stable.
      throw new SourceNetworkError(`${req.method} ${req.url.origin}${req.url.pathname} failed: ${what}`, error, sent);
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}

function parseBody(text: string, status: number): unknown {
  if (text.length === 0) return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    if (status >= 200 && status < 300) throw new SourceProtocolError(`expected a JSON body, got ${text.slice(0, 80)}`);
    return text;
  }
}
