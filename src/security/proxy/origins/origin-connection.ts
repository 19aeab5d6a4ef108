// One keep-alive HTTP/1.1 connection to an origin: it writes a request (its head in one write, a
// body streamed at the origin's pace) and reads the answer, one request at a time (no pipelining,
// like nginx's upstream keepalive). Listeners are the connection's own, made once with it and
// pointing at its current request (`handler`): a request costs no closure and no stream of its own.
//
// The answer's framing decides what the client gets and whether the connection can serve another
// request, so it is read strictly (response-head.ts): no body for HEAD, 1xx, 204 and 304;
// Transfer-Encoding with chunked last is decoded (the client side frames the body anew);
// another Transfer-Encoding, or neither header, runs until the origin closes; else Content-Length.
// A connection is used again only when the answer was read whole and nothing followed it, the
// request body was sent whole, and neither side said `Connection: close`: anything else could make
// the next request read what the origin meant for this one.
//
// Timing is coarse on purpose: the pools' sweep (origin-pools.ts) looks at each connection a few
// times per timeout window, and a request only marks the connection active (no timer set per
// request or per chunk). A timeout fires between its length and one sweep period later.
import type { Socket } from 'node:net';
import type { Readable } from 'node:stream';
import { ChunkedDecoder, ChunkedError } from '../http1/chunked-decoder.ts';
import type { OriginPool } from './origin-pools.ts';
import { ResponseHead } from './response-head.ts';

declare global {
  interface Buffer {
    /** Node's own latin1 decoder, without toString's argument checks (undocumented, stable since Node 0.x; undici and node:http use it). */
    latin1Slice(start: number, end: number): string;
  }
}

export type OriginErrorCode =
  | 'EDGEPLANE_ORIGIN_CONNECT_TIMEOUT'
  | 'EDGEPLANE_ORIGIN_HEADERS_TIMEOUT'
  | 'EDGEPLANE_ORIGIN_BODY_TIMEOUT'
  /** An answer the parser refused (malformed head or chunk, conflicting framing). */
  | 'EDGEPLANE_ORIGIN_PROTOCOL'
  /** The connection ended before the answer did. */
  | 'EDGEPLANE_ORIGIN_CLOSED'
  /** Every connection to the origin busy and too many requests waiting for one. */
  | 'EDGEPLANE_ORIGIN_BUSY'
  /** The pools were closed (the resource changed) before the request got a connection. */
  | 'EDGEPLANE_POOL_CLOSED'
  /** The request cannot be sent as it is (a method or target HTTP/1.1 cannot carry, a control character in a header). */
  | 'EDGEPLANE_REQUEST_INVALID'
  /** The request body is longer or shorter than its Content-Length said. */
  | 'EDGEPLANE_REQUEST_BODY_LENGTH';

export class OriginError extends Error {
  override name = 'OriginError';
  readonly code: OriginErrorCode;

  constructor(code: OriginErrorCode, message: string) {
    super(message);
    this.code = code;
  }
}

/** A request as a connection sends it, and where the answer goes (forwarding.ts). */
export interface OriginHandler {
  /** The whole request head, request line to the empty line, framing included (latin1 text). */
  readonly head: string;
  /** The body to stream after the head; null: none. */
  readonly body: Readable | null;
  /** The body's length as the head declares it; -1: sent chunked. */
  readonly bodyLength: number;
  /** A HEAD request: its answer has no body whatever its headers say. */
  readonly headRequest: boolean;
  /** The head asks for an upgrade: a 101 hands the connection over (onUpgrade). */
  readonly upgrading: boolean;
  /** The connection the request is on (or is waiting for while it connects); set by the pool. */
  connection: OriginConnection | undefined;
  /** The head is about to be written: from now on the request may reach the origin. */
  onRequestStart(): void;
  /** A final answer's head (1xx other than a requested 101 are skipped). `head` is reused: take what is needed now. */
  onResponseStart(head: ResponseHead): void;
  /** A piece of the answer's body; false: the client is full, call resume() when it drains. */
  onResponseData(chunk: Buffer): boolean;
  /** The answer is whole; `last`: its final piece, not passed to onResponseData (it goes out with the end, in one write). */
  onResponseEnd(last: Buffer | undefined): void;
  /** A 101 to an upgrading request: the socket is the handler's now (paused, no listener of ours), `rest` the bytes read past the head. */
  onUpgrade(head: ResponseHead, socket: Socket, rest: Buffer): void;
  /**
   * The request failed. `stale`: it went out on a kept-alive connection that turned out closed by
   * the origin (reset or ended) before any byte of an answer, with nothing of a body sent: a fresh
   * connection may be tried.
   */
  onResponseError(error: Error, stale: boolean): void;
}

// The connection's states.
const Connecting = 0;
/** Connected, no request. */
const Idle = 1;
/** A request sent (or being sent), its answer's head not read yet. */
const Head = 2;
/** Reading the answer's body. */
const Body = 3;
/** Retired: closed, closing, or handed over by an upgrade. */
const Gone = 4;

// How the answer's body is delimited.
const ByLength = 0;
const Chunked = 1;
const UntilClose = 2;

const headEnd = Buffer.from('\r\n\r\n', 'latin1');
/** An answer head (or an interim one) larger than this is refused: 502. */
export const maxHeadBytes = 64 * 1024;

/**
 * Whether `data` holds an LF not preceded by CR from `from` on. Looked for only while a head is
 * incomplete (a complete head is checked line by line): an origin ending its head with bare LFs
 * is refused at once instead of waited for until the headers timeout.
 */
function bareLf(data: Buffer, from: number): boolean {
  for (let i = data.indexOf(0x0a, from); i !== -1; i = data.indexOf(0x0a, i + 1)) if (data[i - 1] !== 0x0d) return true;
  return false;
}

export class OriginConnection {
  readonly socket: Socket;
  readonly #pool: OriginPool;
  #state = Connecting;
  #handler: OriginHandler | undefined;
  /** Requests answered whole on this connection: above 0, the connection is a kept-alive one. */
  #served = 0;
  /** The origin closed its side (EOF). */
  #ended = false;
  #error: Error | undefined;

  // The current answer.
  readonly #head = new ResponseHead();
  /** Bytes of a head not complete yet. */
  #pending: Buffer | undefined;
  /** A byte of an answer arrived for the current request. */
  #answerStarted = false;
  #framing = ByLength;
  #remaining = 0;
  #decoder: ChunkedDecoder | undefined;
  /** Decoded pieces held back until the head is relayed (see #startBody). */
  #held: Buffer[] | undefined;
  /** The connection cannot serve another request after this one. */
  #closeAfter = false;
  /** The client is full: the socket is paused and the body timeout does not run. */
  #paused = false;
  /** How long the connection may idle after this answer (an origin's Keep-Alive hint lowers it). */
  #keepAliveMs: number;

  // The current request's body.
  #body: Readable | null = null;
  #bodySent = 0;
  /** The request body has been sent whole (or there is none). */
  #bodyDone = true;
  /** The body is paused until the socket drains. */
  #bodyBlocked = false;

  // Timing, read by the pools' sweep (tick).
  /** Something happened since the last sweep. */
  #touched = true;
  /** When the sweep last saw something happen. */
  #since = 0;
  /** The current wait's limit in ms; 0: none. */
  #limit: number;

  constructor(pool: OriginPool, socket: Socket, handler: OriginHandler | undefined) {
    this.#pool = pool;
    this.socket = socket;
    this.#handler = handler;
    if (handler !== undefined) handler.connection = this;
    this.#limit = pool.options.connectTimeoutMs;
    this.#keepAliveMs = pool.options.keepAliveTimeoutMs;
    socket.once(pool.https ? 'secureConnect' : 'connect', this.#onConnect);
    socket.on('data', this.#onData);
    socket.on('end', this.#onEnd);
    socket.on('error', this.#onError);
    socket.on('close', this.#onClose);
    socket.on('drain', this.#onDrain);
  }

  /** Sends `handler`'s request; the connection is idle (or just connected). */
  send(handler: OriginHandler): void {
    this.#handler = handler;
    handler.connection = this;
    this.#state = Head;
    this.#answerStarted = false;
    this.#closeAfter = false;
    this.#limit = this.#pool.options.headersTimeoutMs;
    this.#touched = true;
    handler.onRequestStart();
    this.socket.write(handler.head, 'latin1');
    const body = handler.body;
    if (body === null) return;
    this.#body = body;
    this.#bodySent = 0;
    this.#bodyDone = false;
    this.#bodyBlocked = false;
    body.on('data', this.#onBodyData);
    body.on('end', this.#onBodyEnd);
  }

  /** The handler gives its request up (its client left, its body failed): never used again, unless it was only connecting for it. */
  abort(handler: OriginHandler): void {
    if (this.#handler !== handler) return;
    this.#detach();
    // A connection being made for the request goes on to serve the next one.
    if (this.#state !== Connecting) this.#retire(true);
  }

  /** The client drained: read the answer on. */
  resume(handler: OriginHandler): void {
    if (this.#handler !== handler || !this.#paused) return;
    this.#paused = false;
    this.#limit = this.#pool.options.bodyTimeoutMs;
    this.#touched = true;
    this.socket.resume();
  }

  /** The pools' sweep: whether the current wait (connect, head, a pause in the body, idling) has lasted too long. */
  tick(now: number): void {
    if (this.#touched) {
      this.#touched = false;
      this.#since = now;
      return;
    }
    if (this.#limit === 0 || now - this.#since < this.#limit) return;
    switch (this.#state) {
      case Connecting:
        if (this.#handler === undefined) this.#retire(true);
        else this.#fail(new OriginError('EDGEPLANE_ORIGIN_CONNECT_TIMEOUT', `no connection to the origin within ${String(this.#pool.options.connectTimeoutMs)} ms`));
        return;
      case Head:
        this.#fail(new OriginError('EDGEPLANE_ORIGIN_HEADERS_TIMEOUT', `no answer from the origin within ${String(this.#pool.options.headersTimeoutMs)} ms`));
        return;
      case Body:
        this.#fail(new OriginError('EDGEPLANE_ORIGIN_BODY_TIMEOUT', `the origin's answer paused for ${String(this.#pool.options.bodyTimeoutMs)} ms`));
        return;
      default:
        // Idle past the keep-alive time.
        this.#retire(true);
    }
  }

  /** Closes the connection (the pool is closing, or has no use for it). */
  destroy(): void {
    this.#retire(true);
  }

  readonly #onConnect = (): void => {
    if (this.#state !== Connecting) return;
    this.#state = Idle;
    const handler = this.#handler;
    if (handler === undefined) this.#pool.release(this);
    else this.send(handler);
  };

  readonly #onData = (chunk: Buffer): void => {
    if (this.#state === Body) {
      this.#touched = true;
      this.#readBody(chunk, 0);
    } else if (this.#state === Head) {
      this.#answerStarted = true;
      this.#readHead(chunk);
    } else {
      // Bytes nobody asked for (an idle connection): nothing they say can be trusted.
      this.#retire(true);
    }
  };

  /** Finds and parses answer heads in `chunk` (after what is pending), skipping interim ones, then reads the body. */
  #readHead(chunk: Buffer): void {
    let data = chunk;
    let from = 0;
    if (this.#pending !== undefined) {
      from = Math.max(0, this.#pending.length - 3);
      data = Buffer.concat([this.#pending, chunk]);
      this.#pending = undefined;
    }
    let start = 0;
    const handler = this.#handler;
    if (handler === undefined) return;
    const head = this.#head;
    for (;;) {
      const end = data.indexOf(headEnd, from);
      if (end === -1) {
        if (data.length - start > maxHeadBytes) this.#protocolError('answer head too large');
        else if (bareLf(data, Math.max(start, from - 1))) this.#protocolError('bare LF in the answer head');
        else this.#pending = data.subarray(start);
        return;
      }
      if (end - start > maxHeadBytes) {
        this.#protocolError('answer head too large');
        return;
      }
      const refused = head.parse(data.latin1Slice(start, end + 2));
      if (refused !== undefined) {
        this.#protocolError(refused);
        return;
      }
      start = end + 4;
      from = start;
      const status = head.status;
      if (status === 101) {
        if (handler.upgrading) this.#upgrade(handler, data.subarray(start));
        else this.#protocolError('101 to a request that asked for no upgrade');
        return;
      }
      // Interim answers (100 Continue, 103 Early Hints) are not relayed: the final one follows.
      if (status >= 200) break;
    }
    this.#startBody(handler, data, start);
  }

  /** The final answer's head is parsed: settle its framing, hand the head over, read what follows. */
  #startBody(handler: OriginHandler, data: Buffer, start: number): void {
    const head = this.#head;
    const status = head.status;
    this.#closeAfter = head.close || handler.upgrading;
    if (head.keepAliveSeconds >= 0) {
      // The origin closes at its own timeout: leave a second's margin for the race.
      const hinted = head.keepAliveSeconds * 1000 - 1000;
      if (hinted <= 0) this.#closeAfter = true;
      else this.#keepAliveMs = Math.min(this.#pool.options.keepAliveTimeoutMs, hinted);
    }
    this.#state = Body;
    this.#limit = this.#pool.options.bodyTimeoutMs;
    this.#touched = true;
    if (handler.headRequest || status === 204 || status === 304) {
      handler.onResponseStart(head);
      if (this.#handler !== handler) return;
      this.#complete(handler, start < data.length);
      return;
    }
    if (head.chunked) {
      this.#framing = Chunked;
      const decoder = new ChunkedDecoder(this.#onDecoded);
      this.#decoder = decoder;
      // What came with the head is decoded before the head is relayed: a malformed chunk there
      // is still answered 502 instead of cutting off a client that was already answered.
      let end = start;
      if (start < data.length) {
        this.#held = [];
        try {
          end = decoder.push(data, start);
        } catch (error) {
          this.#held = undefined;
          this.#protocolError(error instanceof ChunkedError ? `malformed chunked body: ${error.message}` : String(error));
          return;
        }
      }
      const held = this.#held;
      this.#held = undefined;
      handler.onResponseStart(head);
      if (held !== undefined) for (const piece of held) if (this.#handler === handler && !handler.onResponseData(piece)) this.#pause();
      if (this.#handler !== handler) return;
      if (decoder.done) this.#complete(handler, end < data.length);
      return;
    }
    if (head.otherCoding || head.contentLength < 0) {
      this.#framing = UntilClose;
      this.#closeAfter = true;
    } else {
      this.#framing = ByLength;
      this.#remaining = head.contentLength;
    }
    handler.onResponseStart(head);
    if (this.#handler !== handler) return;
    if (this.#framing === ByLength && this.#remaining === 0) this.#complete(handler, start < data.length);
    else if (start < data.length) this.#readBody(data, start);
    else if (this.#framing === UntilClose && this.#ended) this.#complete(handler, false);
  }

  /** Body bytes of the answer, from `start` in `data`. */
  #readBody(data: Buffer, start: number): void {
    const handler = this.#handler;
    if (handler === undefined) return;
    switch (this.#framing) {
      case ByLength: {
        const available = data.length - start;
        const take = Math.min(available, this.#remaining);
        this.#remaining -= take;
        const piece = start === 0 && take === available ? data : data.subarray(start, start + take);
        if (this.#remaining === 0) this.#complete(handler, take < available, piece);
        else if (!handler.onResponseData(piece)) this.#pause();
        return;
      }
      case Chunked: {
        const decoder = this.#decoder;
        if (decoder === undefined) return;
        let end: number;
        try {
          end = decoder.push(data, start);
        } catch (error) {
          this.#protocolError(error instanceof ChunkedError ? `malformed chunked body: ${error.message}` : String(error));
          return;
        }
        if (decoder.done && this.#handler === handler) this.#complete(handler, end < data.length);
        return;
      }
      default:
        if (!handler.onResponseData(start === 0 ? data : data.subarray(start))) this.#pause();
    }
  }

  /** A piece of a chunked body, decoded. */
  readonly #onDecoded = (piece: Buffer): void => {
    if (this.#held !== undefined) {
      this.#held.push(piece);
      return;
    }
    const handler = this.#handler;
    if (handler !== undefined && !handler.onResponseData(piece)) this.#pause();
  };

  #pause(): void {
    if (this.#paused || this.#state === Gone) return;
    this.#paused = true;
    // Time the client takes to read is not the origin's: the body timeout waits.
    this.#limit = 0;
    this.socket.pause();
  }

  /** The answer was read whole: the handler ends, and the connection serves the next request or closes. */
  #complete(handler: OriginHandler, excess: boolean, last?: Buffer): void {
    const reusable = !excess && !this.#closeAfter && this.#bodyDone && !this.#ended;
    this.#detach();
    this.#served++;
    if (reusable) {
      this.#state = Idle;
      this.#limit = this.#keepAliveMs;
      this.#touched = true;
      if (this.#paused) {
        this.#paused = false;
        this.socket.resume();
      }
    } else {
      this.#retire(true);
    }
    handler.onResponseEnd(last);
    if (reusable && this.#state === Idle) this.#pool.release(this);
  }

  /** A 101 to an upgrade: the socket leaves the pool and goes to the handler as it is. */
  #upgrade(handler: OriginHandler, rest: Buffer): void {
    this.#detach();
    const socket = this.socket;
    socket.pause();
    socket.removeListener('data', this.#onData);
    socket.removeListener('end', this.#onEnd);
    socket.removeListener('error', this.#onError);
    socket.removeListener('close', this.#onClose);
    socket.removeListener('drain', this.#onDrain);
    this.#retire(false);
    handler.onUpgrade(this.#head, socket, rest);
  }

  #protocolError(reason: string): void {
    this.#fail(new OriginError('EDGEPLANE_ORIGIN_PROTOCOL', `the origin's answer was refused: ${reason}`));
  }

  /** The request fails on this connection, which is closed. */
  #fail(error: Error): void {
    const handler = this.#handler;
    this.#detach();
    this.#retire(true);
    handler?.onResponseError(error, false);
  }

  readonly #onEnd = (): void => {
    this.#ended = true;
    const handler = this.#handler;
    // A body delimited by the close is whole now.
    if (handler !== undefined && this.#state === Body && this.#framing === UntilClose) this.#complete(handler, false);
    else this.#lost();
  };

  readonly #onError = (error: Error): void => {
    this.#error ??= error;
  };

  readonly #onClose = (): void => {
    this.#lost();
  };

  /** The connection closed (or the origin ended it) under us: the request on it, if any, fails. */
  #lost(): void {
    if (this.#state === Gone) return;
    const handler = this.#handler;
    const state = this.#state;
    this.#detach();
    this.#retire(true);
    if (handler === undefined) return;
    // On a kept-alive connection, the origin's idle close racing the request: nothing was answered,
    // and nothing a retry would repeat was sent but the head.
    const stale = state === Head && this.#served > 0 && !this.#answerStarted && handler.body === null;
    handler.onResponseError(this.#error ?? new OriginError('EDGEPLANE_ORIGIN_CLOSED', 'the origin closed the connection before its answer ended'), stale);
  }

  // The request body, streamed at the origin's pace.

  readonly #onBodyData = (chunk: Buffer): void => {
    const handler = this.#handler;
    if (handler === undefined || chunk.length === 0) return;
    this.#touched = true;
    this.#bodySent += chunk.length;
    let flushed: boolean;
    if (handler.bodyLength < 0) {
      const socket = this.socket;
      socket.cork();
      socket.write(`${chunk.length.toString(16)}\r\n`, 'latin1');
      socket.write(chunk);
      flushed = socket.write('\r\n', 'latin1');
      socket.uncork();
    } else if (this.#bodySent > handler.bodyLength) {
      this.#bodyLengthError(handler);
      return;
    } else {
      flushed = this.socket.write(chunk);
    }
    if (!flushed && this.#body !== null) {
      this.#bodyBlocked = true;
      this.#body.pause();
    }
  };

  readonly #onBodyEnd = (): void => {
    const handler = this.#handler;
    if (handler === undefined) return;
    if (handler.bodyLength < 0) this.socket.write('0\r\n\r\n', 'latin1');
    else if (this.#bodySent !== handler.bodyLength) {
      this.#bodyLengthError(handler);
      return;
    }
    this.#detachBody(false);
    this.#bodyDone = true;
  };

  readonly #onDrain = (): void => {
    if (!this.#bodyBlocked) return;
    this.#bodyBlocked = false;
    this.#body?.resume();
  };

  #bodyLengthError(handler: OriginHandler): void {
    this.#fail(new OriginError('EDGEPLANE_REQUEST_BODY_LENGTH', `the request body is not the ${String(handler.bodyLength)} bytes its Content-Length said`));
  }

  /** Stops reading the request body; `drop`: it will never be sent whole, let its stream go. */
  #detachBody(drop: boolean): void {
    const body = this.#body;
    if (body === null) return;
    this.#body = null;
    body.removeListener('data', this.#onBodyData);
    body.removeListener('end', this.#onBodyEnd);
    if (drop) body.destroy();
  }

  /** The current request leaves the connection (answered, failed, aborted, upgraded). */
  #detach(): void {
    const handler = this.#handler;
    if (handler !== undefined) {
      this.#handler = undefined;
      handler.connection = undefined;
    }
    this.#detachBody(!this.#bodyDone);
    this.#bodyDone = true;
    this.#pending = undefined;
    this.#decoder = undefined;
    this.#held = undefined;
  }

  /** Leaves the pool for good; `close`: and closes the socket (not when an upgrade took it). */
  #retire(close: boolean): void {
    if (this.#state === Gone) return;
    this.#state = Gone;
    if (this.#handler !== undefined) this.#detach();
    this.#pool.remove(this);
    if (close) this.socket.destroy();
  }
}
