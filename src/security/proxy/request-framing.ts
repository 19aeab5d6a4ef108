// Requests whose framing the proxy and an origin could read differently (request smuggling), or
// whose body is known to be too large, refused before anything else looks at them. node:http's
// parser (llhttp, strict) already refuses with 400, before any handler runs: Content-Length with
// Transfer-Encoding, two Content-Length lines (even equal), a Transfer-Encoding with chunked not
// last on two lines, obs-fold, bare LF line ends, whitespace before a colon, NUL in a value. What it
// lets through to a handler, and is refused here as nginx does:
// - Transfer-Encoding other than `chunked` alone: the body Node hands on is de-chunked but keeps any
//   other coding, which the request sent on would no longer declare (400 when chunked is not the
//   final coding, as RFC 9112 §6.1 requires; 501 for a coding we do not implement);
// - Transfer-Encoding on an HTTP/1.0 request, which has no such framing (400);
// - more than one Host line (RFC 9112 §3.2: 400): Node keeps the first, an origin might take the last.
// HTTP/2 frames its messages itself, and node:http2 refuses connection-specific headers.
import type { IncomingMessage } from 'node:http';
import type { Answer, ProxyRequest } from './exchange.ts';

export function framingProblem(req: ProxyRequest, maxBodySize: number): Answer | undefined {
  if (req.httpVersionMajor !== 1) return bodySizeProblem(req, maxBodySize);
  const transferEncoding = req.headers['transfer-encoding'];
  if (transferEncoding !== undefined) {
    if (req.httpVersionMinor === 0) return refusal(400, 'Transfer-Encoding in an HTTP/1.0 request');
    const codings = transferEncoding.toLowerCase();
    if (codings !== 'chunked') {
      return /(?:^|,)\s*chunked\s*$/.test(codings) ? refusal(501, 'Transfer codings other than chunked are not implemented') : refusal(400, 'chunked is not the final transfer coding');
    }
  }
  if (hostLines(req as IncomingMessage) > 1) return refusal(400, 'More than one Host header');
  return bodySizeProblem(req, maxBodySize);
}

/** A Content-Length over the limit: 413 before a byte of the body is read (a chunked body is counted as it comes: body-limit.ts). */
function bodySizeProblem(req: ProxyRequest, maxBodySize: number): Answer | undefined {
  const length = req.headers['content-length'];
  if (maxBodySize === 0 || length === undefined || Number(length) <= maxBodySize) return undefined;
  return { status: 413, reason: 'body_too_large', body: `Request body larger than ${String(maxBodySize)} bytes\n` };
}

function refusal(status: 400 | 501, message: string): Answer {
  return { status, reason: 'bad_request', body: `${message}\n` };
}

function hostLines(req: IncomingMessage): number {
  const raw = req.rawHeaders;
  let count = 0;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i] ?? '';
    if (name.length === 4 && name.toLowerCase() === 'host') count++;
  }
  return count;
}
