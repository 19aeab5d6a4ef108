// HTTP/1.1 upgrades (WebSocket) passed through to an origin: the handshake goes to the origin like
// any request (same choice of origin, same header rules, same retry on connection failures), and
// once the origin switches protocols the two connections are spliced: bytes both ways at each
// side's pace, either side closing or failing closes the other, and a tunnel idle in both
// directions for `tunnelIdleTimeoutMs` is closed. An origin refusing the upgrade (a 4xx, say) has
// its answer relayed and the connection closed.
import { http } from '../../../net/node-http.ts';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { headerValue, type Answer, type ProxyRequest, type StepExchange } from '../exchange.ts';
import { clientResponseHeaders, originRequestHead, originTarget, ownAnswerHeaders, validFieldValue } from './forwarded-headers.ts';
import { Forwarding, type ForwardOutcome, type ForwardResult, type ForwardTarget } from './forwarding.ts';
import type { ResponseHead } from './response-head.ts';

/** An HTTP/1.1 response head, as raw text. */
function responseHead(status: number, headers: string[], last: string): string {
  let head = `HTTP/1.1 ${String(status)} ${http.STATUS_CODES[status] ?? ''}\r\n`;
  for (let i = 0; i < headers.length; i += 2) head += `${headers[i] ?? ''}: ${headers[i + 1] ?? ''}\r\n`;
  return `${head}${last}\r\n`;
}

/** Joins the client's and the origin's connections until either closes or the tunnel idles. */
function splice(client: Duplex, origin: Socket, idleTimeoutMs: number): void {
  const close = () => {
    client.destroy();
    origin.destroy();
  };
  client.on('error', close).on('close', close);
  origin.on('error', close).on('close', close);
  // Bytes either way pass through the origin's socket: its idle timer is the tunnel's.
  origin.setTimeout(idleTimeoutMs, close);
  client.pipe(origin);
  origin.pipe(client);
}

class UpgradeForwarding extends Forwarding {
  readonly #socket: Duplex;
  readonly #head: Buffer;
  #drainListened = false;

  constructor(exchange: StepExchange, target: ForwardTarget, socket: Duplex, head: Buffer, requestHead: string) {
    super(target.origins, exchange, requestHead, null, 0, true);
    this.#socket = socket;
    this.#head = head;
    socket.on('error', () => socket.destroy());
    socket.once('close', () => this.clientClosed());
  }

  /** The origin switched protocols: its connection (paused, free of the pool's listeners) is the tunnel's other end. */
  override onUpgrade(head: ResponseHead, socket: Socket, rest: Buffer): void {
    if (this.done) {
      socket.destroy();
      return;
    }
    this.answered();
    this.responding = true;
    const status = head.status;
    const protocol = head.upgrade ?? '';
    this.#socket.write(responseHead(status, clientResponseHeaders(head.headers, head.connection, this.exchange.answerHeaders), `connection: upgrade\r\nupgrade: ${protocol}\r\n`));
    // What the origin sent right behind its 101 is the tunnel's first bytes, and so is what the client sent behind its request.
    if (rest.length > 0) this.#socket.write(rest);
    if (this.#head.length > 0) socket.write(this.#head);
    splice(this.#socket, socket, this.origins.tunnelIdleTimeoutMs);
    this.finish('passed', status);
  }

  onResponseStart(head: ResponseHead): void {
    if (!this.finalAnswer()) return;
    this.responding = true;
    this.status = head.status;
    this.#socket.write(responseHead(head.status, clientResponseHeaders(head.headers, head.connection, this.exchange.answerHeaders), 'connection: close\r\n'));
  }

  onResponseData(chunk: Buffer): boolean {
    if (this.#socket.write(chunk)) return true;
    if (!this.#drainListened) {
      this.#drainListened = true;
      this.#socket.on('drain', () => this.connection?.resume(this));
    }
    return false;
  }

  onResponseEnd(last: Buffer | undefined): void {
    if (this.done) return;
    this.#socket.end(last);
    this.finish('passed', this.status);
  }

  protected clientError(): boolean {
    return this.#socket.destroyed;
  }

  /** An upgrade request has no body to limit. */
  protected refusedBody(): undefined {
    return undefined;
  }

  protected answer(status: number, body: string, outcome: ForwardOutcome): void {
    if (!this.#socket.destroyed) this.#socket.end(responseHead(status, ownAnswerHeaders(body, this.exchange.answerHeaders), 'connection: close\r\n') + body);
    this.finish(outcome, status);
  }

  protected cutOff(): void {
    this.#socket.destroy();
  }
}

/**
 * Forwards an HTTP/1.1 upgrade (the request, its socket and the bytes
 * read past its head) to one of the resource's origins; resolves once the origin switched protocols
 * (or refused, or none answered) and the client has its answer.
 */
export function forwardUpgrade(req: ProxyRequest, socket: Duplex, head: Buffer, exchange: StepExchange, resource: ForwardTarget): Promise<ForwardResult> {
  if (socket.destroyed) return Promise.resolve({ outcome: 'client_closed', status: 499, originMs: -1 });
  const upgrade = headerValue(req, 'upgrade') ?? 'websocket';
  const framing = `connection: upgrade\r\nupgrade: ${upgrade}\r\n`;
  const requestHead = validFieldValue(upgrade) ? originRequestHead(exchange.method, originTarget(req.url ?? '/'), req, exchange, framing) : undefined;
  return new UpgradeForwarding(exchange, resource, socket, head, requestHead ?? '').start();
}

/** Answers an upgrade request with the proxy's own answer (a refusal, a redirect) and closes the connection. */
export function answerUpgrade(socket: Duplex, answer: Answer, extra: Record<string, string | string[]>): void {
  const body = answer.body ?? `${String(answer.status)} ${answer.reason}\n`;
  const headers: Record<string, string | string[]> = { 'content-type': answer.type ?? 'text/plain; charset=utf-8', ...extra, ...answer.headers, 'content-length': String(Buffer.byteLength(body)) };
  const lines: string[] = [];
  for (const [name, value] of Object.entries(headers)) for (const one of typeof value === 'string' ? [value] : value) lines.push(name, one);
  if (!socket.destroyed) socket.end(responseHead(answer.status, lines, 'connection: close\r\n') + body);
}
