// One DNS connection over TCP (RFC 7766): two-octet length framing, messages split across reads
// reassembled, pipelined queries answered in order, and what keeps a client from making the server
// hold more than a little for it:
// - replies are written with backpressure: while the connection has `maxPipelined` replies the kernel
//   has not yet taken, or `maxQueuedBytes` of them, its queries are not answered and its socket is
//   not read (so the client's own sends stall); a zone transfer's messages are made and written one
//   by one under the same rule, the next only once the kernel has room for it;
// - a reply that must first be read from the store (an incremental transfer's journal) holds the
//   connection's later queries until it is ready, so replies keep the order of their queries;
// - the idle timer (RFC 7766 §6.2.3) is reset only by a query answered or a reply handed to the
//   kernel, never by a stray byte or a frame that is no query: a client dripping a byte at a time, or
//   not reading its replies, is closed when it runs out.
import type net from 'node:net';
import type { TcpSettings } from './tcp-limits.ts';

/** What one query gets: a message or none, or a transfer's messages, made as they are taken. */
export type TcpMessages = Buffer | Iterable<Buffer> | undefined;

/** One query's reply, or a promise of it when it must be read from the store first. */
export type TcpReply = TcpMessages | Promise<TcpMessages>;

/** Why the server closed a connection: nothing came, or its client did not read what it was sent. */
export type TimeoutReason = 'idle' | 'unread';

/**
 * Replies waiting in this process for the kernel to take them before reading stops: one transfer
 * message. The kernel's own send buffer comes before it; it is bounded by the system (tcp_wmem).
 */
const maxQueuedBytes = 16_384;
const noBytes: Buffer = Buffer.alloc(0);

export interface ConnectionEvents {
  timedOut(reason: TimeoutReason): void;
  /** A transfer failed part-way (its messages could not be made): the connection is closed. */
  failed(error: unknown): void;
}

export function serveConnection(socket: net.Socket, answer: (message: Buffer) => TcpReply, limits: Pick<TcpSettings, 'idleTimeoutMs' | 'maxPipelined'>, events: ConnectionEvents): void {
  /** Read and not yet answered. */
  let input = noBytes;
  /** The messages of a transfer still to write. */
  let messages: Iterator<Buffer> | undefined;
  /** A reply being read from the store: nothing else is answered meanwhile. */
  let waiting = false;
  /** Written to the socket, not yet taken by the kernel. */
  let unsent = 0;
  let paused = false;
  /** The client sent FIN: once everything is answered and written, so does the server. */
  let ended = false;
  /** A reply failed half-way: what was written goes out, then the server's FIN; nothing more is read. */
  let failed = false;
  const timer = setTimeout(() => {
    events.timedOut(unsent > 0 || messages !== undefined ? 'unread' : 'idle');
    socket.destroy();
  }, limits.idleTimeoutMs);

  const written = (error?: Error | null) => {
    unsent--;
    if (error != null) return;
    timer.refresh();
    work();
  };
  const send = (message: Buffer) => {
    const framed = Buffer.allocUnsafe(2 + message.length);
    framed.writeUInt16BE(message.length, 0);
    message.copy(framed, 2);
    unsent++;
    socket.write(framed, written);
  };
  const take = (reply: TcpMessages) => {
    if (reply === undefined) return;
    timer.refresh();
    if (Buffer.isBuffer(reply)) send(reply);
    else messages = reply[Symbol.iterator]();
  };
  /** A reply that cannot be finished: the client sees the connection end where it stopped. */
  const fail = (e: unknown) => {
    messages = undefined;
    failed = true;
    events.failed(e);
    socket.pause();
    socket.end();
  };
  /** The transfer's next message, if any. */
  const nextMessage = (): Buffer | undefined => {
    try {
      const result = messages?.next();
      if (result?.done !== false) messages = undefined;
      return result?.done === false ? result.value : undefined;
    } catch (e) {
      fail(e);
      return undefined;
    }
  };
  /** Writes and answers until the limits stop it, nothing is left to do, or a reply failed. */
  const fill = (): 'blocked' | 'done' | 'failed' => {
    for (;;) {
      if (failed) return 'failed';
      if (socket.destroyed) return 'done';
      if (waiting || unsent >= limits.maxPipelined || socket.writableLength >= maxQueuedBytes) return 'blocked';
      if (messages !== undefined) {
        const message = nextMessage();
        if (message !== undefined) send(message);
        continue;
      }
      if (input.length < 2) break;
      const size = input.readUInt16BE(0);
      if (input.length < 2 + size) break;
      const message = input.subarray(2, 2 + size);
      input = input.length === 2 + size ? noBytes : input.subarray(2 + size);
      const reply = answer(message);
      // What gets no reply (shorter than a header, say) does not count as activity.
      if (!(reply instanceof Promise)) {
        take(reply);
        continue;
      }
      waiting = true;
      void reply.then(take, fail).finally(() => {
        waiting = false;
        work();
      });
      return 'blocked';
    }
    return 'done';
  };
  /** Answers what the limits let through, in one system call; reads on only while they allow. */
  const work = () => {
    if (socket.destroyed || failed) return;
    socket.cork();
    const state = fill();
    socket.uncork();
    if (state === 'failed') return;
    if (state === 'blocked') {
      if (!paused) socket.pause();
      paused = true;
    } else if (ended) {
      if (!socket.writableEnded) socket.end();
    } else if (paused) {
      socket.resume();
      paused = false;
    }
  };

  socket.on('data', (chunk: Buffer) => {
    if (failed) return;
    input = input.length === 0 ? chunk : Buffer.concat([input, chunk]);
    work();
  });
  // The server lets connections half-open, so replies still being written when the client's FIN
  // arrives are not cut off.
  socket.on('end', () => {
    ended = true;
    work();
  });
  socket.on('close', () => clearTimeout(timer));
}
