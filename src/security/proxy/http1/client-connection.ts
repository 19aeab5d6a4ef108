// One client connection speaking HTTP/1.x to the proxy (plain, or TLS after ALPN chose http/1.1):
// request heads read and validated (request-head.ts), one request at a time, its body fed to its
// ClientRequest as it arrives (Content-Length or chunked), its answer written by its ClientResponse,
// then the next request (keep-alive; pipelined requests wait in the buffer, and reading stops while
// more than a head's worth waits). What the connection may hold is bounded as node:http bounds it:
// a head must be whole within the header timeout (bytes trickled one at a time do not extend it)
// and the header size; an idle connection is closed after the idle timeout (both checked by a
// sweep, connection-clock.ts, so that no timer is set per request). A head refused gets nginx's
// status and the connection is closed; so is a connection whose request body was not read whole
// when its answer ended (what is left of it must not be read as a request).
import type { Socket } from 'node:net';
import type { ClientErrorReason, ProxyLimits } from '../server-limits.ts';
import { ChunkedDecoder, ChunkedError } from './chunked-decoder.ts';
import { ClientRequest, type BodySource } from './client-request.ts';
import { ClientResponse, type AnswerSink } from './client-response.ts';
import type { ConnectionClock, Timed } from './connection-clock.ts';
import { isRefusal, parseRequestHead, type HeadRefusal } from './request-head.ts';
import type { RequestTurns, Waiting } from './request-turns.ts';

export interface Http1Handlers {
  request(req: ClientRequest, res: ClientResponse): void;
  /** A request asking for another protocol (WebSocket): the connection is the handler's from now on. */
  upgrade(req: ClientRequest, socket: Socket, head: Buffer): void;
  /**
   * A request refused before any handler saw it, or a connection cut for its pace: `status` is what
   * the client was answered, 0 when nothing (a connection that never sent a byte).
   */
  clientError(reason: ClientErrorReason, status: number, socket: Socket): void;
  /**
   * The engine or a handler threw while serving the connection (a defect): the client got 500 if
   * nothing was answered yet, and the connection closes. The defect costs that connection, not the
   * thread (the process, for the main thread, which also serves the API and DNS).
   */
  failed?(error: unknown, socket: Socket): void;
}

export interface Http1Options {
  limits: Pick<ProxyLimits, 'headerTimeoutMs' | 'idleTimeoutMs' | 'maxHeaderSize'>;
  handlers: Http1Handlers;
  clock: ConnectionClock;
  /** The thread's turns: under overload, young connections' requests wait (request-turns.ts). */
  turns: RequestTurns;
}

/** Header lines a request may have (node:http allows 2,000; nginx's buffers hold about 100 of usual size). */
const maxFields = 256;

const headEnd = Buffer.from('\r\n\r\n');

const idle = 0;
const readingHead = 1;
const busy = 2;
const closed = 3;

const refusals: Record<HeadRefusal['status'], string> = {
  400: 'Bad Request',
  431: 'Request Header Fields Too Large',
  501: 'Not Implemented',
  505: 'HTTP Version Not Supported',
};

/** Whether `buffer` holds, from `from` on, an LF not preceded by a CR. */
function bareLf(buffer: Buffer, from: number): boolean {
  for (let i = buffer.indexOf(0x0a, from); i >= 0; i = buffer.indexOf(0x0a, i + 1)) {
    if (i === 0 || buffer[i - 1] !== 0x0d) return true;
  }
  return false;
}

function refusalText(status: number, reason: string): string {
  return `HTTP/1.1 ${String(status)} ${reason}\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`;
}

class ClientConnection implements BodySource, AnswerSink, Timed, Waiting {
  deadline: number;
  /** When it was served (performance.now()): its age decides whether its requests may wait their turn. */
  readonly #opened: number;
  /** A request of it waits its turn (request-turns.ts); reading is stopped meanwhile. */
  #waitingTurn = false;
  readonly #socket: Socket;
  readonly #options: Http1Options;
  #state = idle;
  /** Bytes read and not yet taken: a head arriving, or pipelined requests. */
  #buffer: Buffer | undefined;
  /** How far #buffer was searched for the end of a head. */
  #searched = 0;
  #request: ClientRequest | undefined;
  #response: ClientResponse | undefined;
  /** Body bytes still to come of a Content-Length body; -1 when chunked or none. */
  #bodyLeft = -1;
  #decoder: ChunkedDecoder | undefined;
  /** Reading was stopped: the body's reader is full, or enough pipelined bytes wait. */
  #paused = false;
  /** The client closed its sending side. */
  #ended = false;

  constructor(socket: Socket, options: Http1Options) {
    this.#socket = socket;
    this.#options = options;
    this.#opened = performance.now();
    this.deadline = this.#opened + options.limits.headerTimeoutMs;
    options.clock.add(this);
    socket.on('data', this.#onData).on('drain', this.#onDrain).on('end', this.#onEnd).on('error', this.#onError).on('close', this.#onClose);
    socket.resume();
  }

  /** The clock found the connection past its deadline. */
  expired(): void {
    if (this.#state === readingHead) {
      this.#refuse(408, 'Request Timeout', 'header_timeout');
      return;
    }
    // A first request never begun counts as a header timeout; an idle keep-alive connection just closes.
    if (this.#state === idle && this.#socket.bytesWritten === 0) this.#options.handlers.clientError('header_timeout', 0, this.#socket);
    this.#socket.destroy();
  }

  get waiting(): boolean {
    return this.#waitingTurn && this.#state !== closed;
  }

  /** Its turn came: the request that waited is read. */
  start(): void {
    this.#waitingTurn = false;
    if (!this.#paused) this.#socket.resume();
    this.#heads(true);
  }

  wantBody(request: ClientRequest): void {
    if (request !== this.#request || !this.#paused) return;
    this.#paused = false;
    this.#socket.resume();
  }

  answered(response: ClientResponse, keepAlive: boolean): void {
    if (response !== this.#response) return;
    const request = this.#request;
    this.#request = undefined;
    this.#response = undefined;
    // The rest of an unread body must not be read as a request: the connection closes.
    if (!keepAlive || request?.complete !== true || this.#ended) {
      this.#close();
      return;
    }
    this.#state = idle;
    this.deadline = performance.now() + this.#options.limits.idleTimeoutMs;
    if (this.#paused) {
      this.#paused = false;
      this.#socket.resume();
    }
    // Pipelined requests: the next one on the next turn (not within this answer's call stack).
    if (this.#buffer !== undefined) setImmediate(this.#nextHeads);
  }

  #data(chunk: Buffer): void {
    if (this.#state === closed) return;
    if (this.#state === busy) {
      if (this.#request?.complete === false) {
        this.#body(chunk);
        return;
      }
      this.#hold(chunk);
      return;
    }
    this.#hold(chunk);
    this.#heads();
  }

  /** Keeps bytes for later; past a head's worth waiting behind a request, reading stops. */
  #hold(chunk: Buffer): void {
    this.#buffer = this.#buffer === undefined ? chunk : Buffer.concat([this.#buffer, chunk]);
    if (this.#state === busy && this.#buffer.length > this.#options.limits.maxHeaderSize) this.#pause();
  }

  #pause(): void {
    if (this.#paused) return;
    this.#paused = true;
    this.#socket.pause();
  }

  /** Takes the next request from the buffer when its head is whole; `admitted`: its turn has come. */
  #heads(admitted = false): void {
    const buffer = this.#buffer;
    if (buffer === undefined || this.#state === busy || this.#state === closed) return;
    const { maxHeaderSize, headerTimeoutMs } = this.#options.limits;
    if (this.#state === idle) {
      // A new request: under overload, a young connection's waits for its turn, reading nothing more.
      if (this.#waitingTurn) return;
      if (!admitted && !this.#options.turns.admit(this, this.#opened)) {
        this.#waitingTurn = true;
        this.#socket.pause();
        return;
      }
      this.#state = readingHead;
      this.deadline = performance.now() + headerTimeoutMs;
      this.#searched = 0;
    }
    // Empty lines before a request line are ignored (RFC 9112 §2.2), as node:http and nginx do.
    let start = 0;
    while (buffer.length >= start + 2 && buffer[start] === 0x0d && buffer[start + 1] === 0x0a) start += 2;
    const end = buffer.indexOf(headEnd, Math.max(start, this.#searched - 3));
    if (end < 0) {
      // A line ended by a bare LF would never be followed by the CRLF CRLF awaited: refused now, not at the timeout.
      if (bareLf(buffer, Math.max(start, this.#searched))) {
        this.#refuse(400, refusals[400], 'bad_request');
        return;
      }
      this.#searched = buffer.length;
      if (buffer.length - start > maxHeaderSize) this.#refuse(431, refusals[431], 'header_too_large');
      return;
    }
    if (end - start > maxHeaderSize) {
      this.#refuse(431, refusals[431], 'header_too_large');
      return;
    }
    const head = parseRequestHead(buffer.toString('latin1', start, end), maxFields);
    if (isRefusal(head)) {
      this.#refuse(head.status, refusals[head.status], head.status === 431 ? 'header_too_large' : 'bad_request');
      return;
    }
    const rest = end + 4 === buffer.length ? undefined : buffer.subarray(end + 4);
    this.#buffer = undefined;
    this.#state = busy;
    this.deadline = Infinity;
    const socket = this.#socket;
    const request = new ClientRequest(head, socket, this);
    if (head.upgrade !== undefined) {
      this.#handOver();
      this.#options.handlers.upgrade(request, socket, rest ?? Buffer.alloc(0));
      return;
    }
    const response = new ClientResponse(request, socket, this);
    this.#request = request;
    this.#response = response;
    if (head.chunked) {
      this.#decoder = new ChunkedDecoder((data) => this.#push(request, data));
      this.#bodyLeft = -1;
    } else if (head.contentLength > 0) {
      this.#decoder = undefined;
      this.#bodyLeft = head.contentLength;
    } else {
      this.#bodyEnded(request);
    }
    if (rest !== undefined) {
      if (request.complete) this.#buffer = rest;
      else this.#body(rest);
    }
    if (head.expectContinue && !request.complete) request.once('resume', () => this.#continue(request));
    this.#options.handlers.request(request, response);
  }

  /** Feeds body bytes to the current request; what follows its end waits for the next request. */
  #body(chunk: Buffer): void {
    const request = this.#request;
    if (request === undefined) return;
    let next: number;
    if (this.#decoder !== undefined) {
      try {
        next = this.#decoder.push(chunk);
      } catch (error) {
        if (!(error instanceof ChunkedError)) throw error;
        this.#badBody(request, error);
        return;
      }
      if (this.#decoder.done) this.#bodyEnded(request);
    } else {
      next = Math.min(this.#bodyLeft, chunk.length);
      this.#bodyLeft -= next;
      this.#push(request, next === chunk.length ? chunk : chunk.subarray(0, next));
      if (this.#bodyLeft === 0) this.#bodyEnded(request);
    }
    if (next < chunk.length) this.#hold(chunk.subarray(next));
  }

  #push(request: ClientRequest, data: Buffer): void {
    if (!request.feed(data)) this.#pause();
  }

  #bodyEnded(request: ClientRequest): void {
    this.#decoder = undefined;
    request.finish();
  }

  /** A malformed chunk in mid-body: the request fails (its origin request is aborted), the client gets 400 if nothing was answered, and the connection closes. */
  #badBody(request: ClientRequest, error: Error): void {
    this.#options.handlers.clientError('bad_request', 400, this.#socket);
    request.destroy(error);
    const socket = this.#socket;
    const response = this.#response;
    if (response !== undefined && !response.headersSent && socket.writable) {
      response.preempt(400);
      socket.end(refusalText(400, refusals[400]));
    }
    this.#close();
  }

  /** The client waits for a 100 before sending its body: told when the body is first read. */
  #continue(request: ClientRequest): void {
    const response = this.#response;
    if (request !== this.#request || response === undefined || response.headersSent || !this.#socket.writable) return;
    this.#socket.write('HTTP/1.1 100 Continue\r\n\r\n', 'latin1');
  }

  #refuse(status: number, reason: string, why: ClientErrorReason): void {
    this.#options.handlers.clientError(why, status, this.#socket);
    const socket = this.#socket;
    if (socket.writable) socket.end(refusalText(status, reason));
    this.#close();
  }

  /** The engine or a handler threw while serving this connection: it fails alone (Http1Handlers.failed). */
  #failed(error: unknown): void {
    if (this.#state === closed) return;
    this.#options.handlers.failed?.(error, this.#socket);
    // Without an error: nothing may be listening for one on a request the handler dropped.
    this.#request?.destroy();
    const socket = this.#socket;
    const response = this.#response;
    if ((response === undefined || !response.headersSent) && socket.writable) {
      response?.preempt(500);
      socket.end(refusalText(500, 'Internal Server Error'));
    }
    this.#close();
  }

  // This connection's own listeners on its socket: an upgrade takes them off, and only them (the
  // connection guard's stay: they count the connection until it closes).
  readonly #onData = (chunk: Buffer) => {
    try {
      this.#data(chunk);
    } catch (e) {
      this.#failed(e);
    }
  };
  readonly #nextHeads = () => {
    try {
      this.#heads();
    } catch (e) {
      this.#failed(e);
    }
  };
  readonly #onDrain = () => this.#response?.emit('drain');
  readonly #onEnd = () => this.#end();
  readonly #onError = () => this.#socket.destroy();
  readonly #onClose = () => this.#closed();

  /** The client ended its side: an answer under way is still written, then the connection closes. */
  #end(): void {
    this.#ended = true;
    const request = this.#request;
    if (request !== undefined && !request.complete) request.destroy(new Error('the client closed its request before its body ended'));
    if (this.#state !== busy) this.#close();
  }

  /** Closes once what was written has gone out. */
  #close(): void {
    if (this.#state === closed) return;
    this.#state = closed;
    this.#options.clock.delete(this);
    const socket = this.#socket;
    socket.end();
    if (socket.writableFinished) socket.destroy();
    else socket.once('finish', () => socket.destroy());
  }

  #closed(): void {
    this.#state = closed;
    this.#options.clock.delete(this);
    const request = this.#request;
    const response = this.#response;
    this.#request = undefined;
    this.#response = undefined;
    if (request !== undefined && !request.complete) request.destroy(new Error('the client closed the connection before its body ended'));
    if (response !== undefined && !response.finished) {
      response.finished = true;
      response.emit('close');
    }
  }

  /** The socket leaves this connection (an upgrade): none of this connection's listeners or timers stay. */
  #handOver(): void {
    this.#state = closed;
    this.#options.clock.delete(this);
    const socket = this.#socket;
    socket.off('data', this.#onData).off('drain', this.#onDrain).off('end', this.#onEnd).off('error', this.#onError).off('close', this.#onClose);
    socket.pause();
  }
}

/** Serves HTTP/1.x on a connection (its bytes so far may have been put back with unshift). */
export function serveHttp1(socket: Socket, options: Http1Options): void {
  new ClientConnection(socket, options);
}
