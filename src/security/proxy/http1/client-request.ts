// One HTTP/1.x request from a client, as the proxy's pipeline and forwarding see it: the parsed head
// with node:http's field names (so that the same code serves node:http2's compatibility requests),
// and its body as a Readable fed by the connection at the client's pace: when nobody reads it, the
// connection stops reading the socket.
import { Readable } from 'node:stream';
import type { IncomingHttpHeaders } from 'node:http';
import type { Socket } from 'node:net';
import { headerRecord, type RequestHead } from './request-head.ts';

/** What the request needs of its connection. */
export interface BodySource {
  /** The body's reader wants more: read the socket again. */
  wantBody(request: ClientRequest): void;
}

export class ClientRequest extends Readable {
  readonly method: string;
  readonly url: string;
  readonly httpVersionMajor = 1;
  readonly httpVersionMinor: 0 | 1;
  readonly head: RequestHead;
  readonly socket: Socket;
  /** The body has been received whole (at once for a request without one). */
  complete = false;
  readonly #source: BodySource;
  #headers: IncomingHttpHeaders | undefined;
  /** A reader asked for more and has been given nothing since. */
  #wanting = false;
  #ended = false;

  constructor(head: RequestHead, socket: Socket, source: BodySource) {
    super();
    this.head = head;
    this.method = head.method;
    this.url = head.url;
    this.httpVersionMinor = head.minor;
    this.socket = socket;
    this.#source = source;
  }

  get httpVersion(): string {
    return this.httpVersionMinor === 1 ? '1.1' : '1.0';
  }

  /** Made when first asked for: a request refused by its host or its client never needs them as a record. */
  get headers(): IncomingHttpHeaders {
    return (this.#headers ??= headerRecord(this.head.fields) as IncomingHttpHeaders);
  }

  /** One header as node:http's record would hold it (repeated lines joined), found without making the record. */
  header(name: string): string | undefined {
    const fields = this.head.fields;
    let found: string | undefined;
    for (let i = 0; i < fields.length; i += 2) {
      if (fields[i] !== name) continue;
      const value = fields[i + 1] ?? '';
      found = found === undefined ? value : `${found}${name === 'cookie' ? '; ' : ', '}${value}`;
    }
    return found;
  }

  /** Whether a body follows the head (declared by Content-Length or chunked). */
  get hasBody(): boolean {
    return this.head.chunked || this.head.contentLength > 0;
  }

  /** Body bytes from the connection; false when the reader is full. */
  feed(data: Buffer): boolean {
    this.#wanting = false;
    return this.push(data);
  }

  /** The body is whole. The end is pushed only once a reader asks: ending a stream nobody reads costs a tick or two. */
  finish(): void {
    this.complete = true;
    if (this.#wanting) this.#pushEnd();
  }

  override _read(): void {
    if (this.complete) this.#pushEnd();
    else {
      this.#wanting = true;
      this.#source.wantBody(this);
    }
  }

  #pushEnd(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.push(null);
  }
}
