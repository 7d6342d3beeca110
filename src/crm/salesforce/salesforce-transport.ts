/**
 * How jsforce's HTTP requests are sent: our replacement of its request function (jsforce/lib/request.js), installed on
 * a connection's transports by salesforce-connection.ts. jsforce's own covers only the wait for headers with a
 * timeout (30 minutes by default), reads answers of any size, retries by itself (re-sending a consumed Bulk API 2.0
 * upload stream: "Response body object should not be disturbed or locked", issue 12), and an answer body that fails
 * half way is an unhandled stream error. Here each request has one deadline for headers and whole answer, the answer
 * is read (bounded) before jsforce sees it, so any failure reaches jsforce as the request's error, and nothing is
 * retried: every retry is the call policy's (salesforce-call-policy.ts), with the request rebuilt. Redirects are not
 * followed (the REST and Bulk APIs answer where they are asked).
 */
import type { Duplex, PassThrough } from 'node:stream';
import { createHttpRequestHandlerStreams } from 'jsforce/lib/request-helper.js';
import type { HttpRequest } from 'jsforce/lib/types/common.js';
import { Agent, fetch, ProxyAgent, type Dispatcher } from 'undici';
import { announcesMoreThan, readBounded, ResponseTooLargeError } from '../../shared/bounded-body.js';
import { RemoteTimeoutError } from '../../shared/remote-deadline.js';

/** Largest Salesforce answer read: Bulk API 2.0 results of a 10,000-row job are far below it. */
export const MAX_SALESFORCE_ANSWER_BYTES = 64 * 1024 * 1024;

/** What jsforce's Transport calls to send one request: a duplex (body in, answer out) that emits response/error. */
export type RequestStreamCreator = (req: HttpRequest) => Duplex;

let direct: Agent | undefined;

/** The proxy jsforce itself would use (the same variables), else one keep-alive agent for the process. */
function dispatcher(): Dispatcher {
  const proxy = process.env.https_proxy ?? process.env.http_proxy ?? process.env.HTTPS_PROXY ?? process.env.HTTP_PROXY;
  if (proxy) return new ProxyAgent({ uri: proxy, requestTls: { allowH2: false } });
  direct ??= new Agent({ connect: { allowH2: false } });
  return direct;
}

export function boundedRequests(timeoutMs: number, maxBytes = MAX_SALESFORCE_ANSWER_BYTES): RequestStreamCreator {
  return (req) => {
    const { input, output, stream } = createHttpRequestHandlerStreams(req);
    void send(req, input, output, stream, timeoutMs, maxBytes);
    return stream;
  };
}

async function send(
  req: HttpRequest,
  input: PassThrough,
  output: PassThrough,
  emitter: Duplex,
  timeoutMs: number,
  maxBytes: number,
): Promise<void> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new RemoteTimeoutError('Salesforce', timeoutMs)), timeoutMs);
  try {
    const { url, method, headers } = req;
    const res = await fetch(url, {
      method,
      ...(headers ? { headers } : {}),
      ...(/^(post|put|patch)$/i.test(method) ? { body: input, duplex: 'half' } : {}),
      redirect: 'manual',
      signal: controller.signal,
      dispatcher: dispatcher(),
    });
    const answerHeaders: Record<string, string> = {};
    res.headers.forEach((value, name) => (answerHeaders[name.toLowerCase()] = value));
    if (announcesMoreThan(answerHeaders['content-length'], maxBytes))
      throw new ResponseTooLargeError('Salesforce', maxBytes);
    const body = res.body ? await readBounded(res.body, maxBytes, 'Salesforce') : '';
    clearTimeout(timer);
    emitter.emit('response', { statusCode: res.status, headers: answerHeaders });
    output.end(body);
  } catch (err) {
    // Whatever the client threw once aborted, the deadline is the reason.
    const reason: unknown = controller.signal.aborted ? controller.signal.reason : err;
    if (!controller.signal.aborted) controller.abort();
    emitter.emit('error', reason);
  } finally {
    clearTimeout(timer);
  }
}
