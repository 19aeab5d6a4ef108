// The answer to one HTTP/1.x request, written straight to the client's socket. Framing is decided
// here, once, from the status and the headers the caller gives: no body for HEAD, 1xx, 204 and
// 304; the given Content-Length; else chunked for HTTP/1.1 clients and until-close for HTTP/1.0.
// The head is held until the first body bytes or the end, so that a small answer leaves in one
// system call. Connection-level headers (Connection, Transfer-Encoding, Keep-Alive) are the
// proxy's own: whatever the caller passes under those names is dropped (Connection: close is
// honoured). 'close' is emitted only when the client goes before the answer is whole.
import { EventEmitter } from 'node:events';
import type { OutgoingHttpHeaders } from 'node:http';
import { http } from '../../../net/node-http.ts';
import type { Socket } from 'node:net';
import type { ClientRequest } from './client-request.ts';

/** What the answer needs of its connection. */
export interface AnswerSink {
  /** The answer is whole (on the socket): the connection may take the next request, or close. */
  answered(response: ClientResponse, keepAlive: boolean): void;
}

/** Bytes of a body small enough to copy behind its head rather than write beside it. */
const smallBody = 4096;

/** A header value that could end a line: response splitting. */
const lineBreak = /[\r\n\0]/;

/** `Date`, as HTTP wants it, made at most once a second. */
let dateSecond = 0;
let dateText = '';
function httpDate(): string {
  const now = Date.now();
  const second = Math.floor(now / 1000);
  if (second !== dateSecond) {
    dateSecond = second;
    dateText = new Date(now).toUTCString();
  }
  return dateText;
}

export class ClientResponse extends EventEmitter {
  readonly req: ClientRequest;
  readonly socket: Socket;
  statusCode = 200;
  headersSent = false;
  /** The answer has been ended (or cut off). */
  finished = false;
  readonly #sink: AnswerSink;
  /** The head, until it goes out with the first bytes of the body. */
  #pendingHead = '';
  /** The head being built by writeHead, with what its headers said. */
  #head = '';
  #length = -1;
  #dated = false;
  #chunked = false;
  #noBody = false;
  #keepAlive: boolean;

  constructor(req: ClientRequest, socket: Socket, sink: AnswerSink) {
    super();
    this.req = req;
    this.socket = socket;
    this.#sink = sink;
    this.#keepAlive = req.head.keepAlive;
  }

  /** Headers as an object or as a flat name, value list (a name repeated for each of its values). */
  writeHead(statusCode: number, headers?: OutgoingHttpHeaders | readonly string[]): this {
    if (this.headersSent) throw new Error('the answer\'s head was already written');
    this.statusCode = statusCode;
    const req = this.req;
    this.#head = `HTTP/1.1 ${String(statusCode)} ${http.STATUS_CODES[statusCode] ?? 'Unknown'}\r\n`;
    if (Array.isArray(headers)) {
      const list = headers as readonly string[];
      for (let i = 0; i < list.length; i += 2) this.#add(list[i] ?? '', list[i + 1] ?? '');
    } else if (headers !== undefined) {
      const record = headers as OutgoingHttpHeaders;
      for (const name in record) {
        const value = record[name];
        if (value === undefined) continue;
        if (Array.isArray(value)) for (const one of value) this.#add(name, one);
        else this.#add(name, String(value));
      }
    }
    let head = this.#head;
    this.#noBody = req.method === 'HEAD' || statusCode < 200 || statusCode === 204 || statusCode === 304;
    if (!this.#noBody && this.#length < 0) {
      if (req.httpVersionMinor === 1) {
        this.#chunked = true;
        head += 'transfer-encoding: chunked\r\n';
      } else {
        // HTTP/1.0 has no other way to end a body of unknown length.
        this.#keepAlive = false;
      }
    }
    if (!this.#dated) head += `date: ${httpDate()}\r\n`;
    if (!this.#keepAlive) head += 'connection: close\r\n';
    else if (req.httpVersionMinor === 0) head += 'connection: keep-alive\r\n';
    this.#pendingHead = `${head}\r\n`;
    this.#head = '';
    this.headersSent = true;
    return this;
  }

  /** One header line for the head under way; the connection-level ones are the proxy's to set. */
  #add(name: string, value: string): void {
    if (lineBreak.test(value) || lineBreak.test(name)) throw new TypeError(`invalid header ${name}`);
    switch (name.toLowerCase()) {
      case 'content-length':
        this.#length = Number(value);
        break;
      case 'connection':
        if (value.toLowerCase().includes('close')) this.#keepAlive = false;
        return;
      case 'transfer-encoding':
      case 'keep-alive':
        return;
      case 'date':
        this.#dated = true;
        break;
      default:
        break;
    }
    this.#head += `${name}: ${value}\r\n`;
  }

  /** Writes body bytes; false when the client's side is full (wait for 'drain'). */
  write(chunk: Buffer | string): boolean {
    if (!this.headersSent) this.writeHead(this.statusCode);
    return this.#send(chunk, false);
  }

  end(chunk?: Buffer | string): this {
    if (this.finished) return this;
    if (!this.headersSent) {
      const length = chunk === undefined ? 0 : Buffer.byteLength(chunk);
      this.writeHead(this.statusCode, ['content-length', String(length)]);
    }
    this.#send(chunk, true);
    this.finished = true;
    this.#sink.answered(this, this.#keepAlive);
    return this;
  }

  /** Cuts the client off: an answer under way must not be taken for a whole one. */
  destroy(): void {
    if (!this.finished) this.socket.destroy();
  }

  /** The connection answered `status` itself (a malformed body): nothing more is written for this request. */
  preempt(status: number): void {
    this.statusCode = status;
    this.headersSent = true;
    this.finished = true;
  }

  /** The head if still held, the chunk framed as the answer's framing says, and the end of a chunked body. */
  #send(chunk: Buffer | string | undefined, last: boolean): boolean {
    const socket = this.socket;
    if (socket.destroyed || this.finished) return false;
    const body = this.#noBody || chunk === undefined || chunk.length === 0 ? undefined : chunk;
    const head = this.#pendingHead;
    this.#pendingHead = '';
    if (!this.#chunked) {
      if (body === undefined) return head.length === 0 ? true : socket.write(head, 'latin1');
      if (head.length === 0) return socket.write(body);
      // The proxy's own short answers, in ASCII (the same in latin1 as in UTF-8): one string, one write
      // (a corked pair goes through writev, dearer).
      if (typeof body === 'string' && Buffer.byteLength(body) === body.length) return socket.write(head + body, 'latin1');
      // A small answer's head and body copied into one buffer: one plain write instead of a corked pair.
      if (typeof body !== 'string' && body.length <= smallBody) {
        const whole = Buffer.allocUnsafe(head.length + body.length);
        whole.write(head, 0, 'latin1');
        body.copy(whole, head.length);
        return socket.write(whole);
      }
      socket.cork();
      socket.write(head, 'latin1');
      const more = socket.write(body);
      socket.uncork();
      return more;
    }
    socket.cork();
    let more = true;
    if (head.length > 0) more = socket.write(head, 'latin1');
    if (body !== undefined) {
      socket.write(`${Buffer.byteLength(body).toString(16)}\r\n`, 'latin1');
      socket.write(body);
      more = socket.write('\r\n', 'latin1');
    }
    if (last) more = socket.write('0\r\n\r\n', 'latin1');
    socket.uncork();
    return more;
  }
}
