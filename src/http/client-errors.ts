// Requests that Node's HTTP parser refuses before Fastify sees them (Content-Length together with
// Transfer-Encoding, a NUL in the path, headers over the size limit, a request that is not HTTP):
// answered in the error model like every other error, then the connection is closed, since the
// parser cannot tell where the next request would start.
import { http } from '../net/node-http.ts';
import type { Socket } from 'node:net';
import type { FastifyBaseLogger } from 'fastify';
import { ApiError } from '../errors.ts';

interface ParserError extends Error {
  code?: string;
  /** llhttp's fixed description of what it refused ("Invalid header value char"). */
  reason?: string;
}

function toApiError(error: ParserError): ApiError {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return new ApiError(431, 'header_too_large', 'the request line and headers are larger than the server accepts (16 KiB by default)');
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new ApiError(408, 'request_timeout', 'the request did not arrive in time');
    default:
      return new ApiError(400, 'bad_request', `malformed HTTP request${error.reason === undefined ? '' : `: ${error.reason}`}`);
  }
}

export function clientErrorHandler(logger: FastifyBaseLogger): (error: ParserError, socket: Socket) => void {
  return (error, socket) => {
    // A reset connection has nobody left to answer.
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    const apiError = toApiError(error);
    logger.debug({ code: error.code, status: apiError.status }, 'malformed HTTP request refused');
    if (!socket.writable) {
      socket.destroy();
      return;
    }
    const body = JSON.stringify(apiError.body());
    const response =
      `HTTP/1.1 ${apiError.status} ${http.STATUS_CODES[apiError.status] ?? ''}\r\n` +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      'Connection: close\r\n\r\n' +
      body;
    // Closed once the answer is out, whatever else the client still sends.
    socket.end(response, () => socket.destroy());
  };
}
