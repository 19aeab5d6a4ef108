// The proxy's access log: one JSON line per request (EDGEPLANE_PROXY_ACCESS_LOG=0 turns it off), in
// the service log's shape (pino's level, ISO time, msg "access") so the same tools read both.
//
// A flood must not make the log the bottleneck, nor its memory unbounded: lines are gathered and
// written asynchronously, whole lines at a time (a full piece, or what 100 ms gathered), one write
// in flight per thread; when the destination does not keep up and `maxPending` bytes wait, further
// lines are dropped and counted (the metric edgeplane_proxy_access_log_dropped_total) rather than
// slowing requests down. Writes to a pipe hold at most 4,096 bytes (PIPE_BUF), so the lines of
// several threads writing to one pipe never interleave within a line.
//
// Never logged: the query string (it carries tokens and keys as often as not), cookies, credentials,
// any header but the User-Agent.
import type { WafFinding } from './waf/waf.ts';
import fs from 'node:fs';
import type { Writable } from 'node:stream';

export interface AccessEntry {
  /** The resource's id; undefined when no resource took the request (an unknown host). */
  resource: number | undefined;
  host: string;
  method: string;
  /** Without the query string. */
  path: string;
  status: number;
  /** As the metrics name it: passed, origin_error, or the reason of the proxy's own answer. */
  outcome: string;
  client: string;
  /** `1.1` or `2.0`. */
  httpVersion: string;
  secure: boolean;
  /** Whole request, from its headers parsed to its answer sent. */
  durationMs: number;
  /** The origin's address and port, when forwarded. */
  origin?: string | undefined;
  /** How long the origin took, when forwarded. */
  originMs?: number | undefined;
  /** Bytes of the answer sent to the client, when known. */
  bytesSent?: number | undefined;
  userAgent?: string | undefined;
  /** What the WAF found: its request id, action, score and matched rule ids (never the matched text). */
  waf?: WafFinding | undefined;
}

/** Where lines go: `write` is called with one piece at a time and calls back when it is written. */
export interface AccessLogDestination {
  write(piece: string, done: (error?: Error | null) => void): void;
  /** Bytes of one piece: whole lines up to this many go in one write. */
  maxPiece: number;
}

/**
 * PIPE_BUF on Linux: a write of at most this many bytes to a pipe is never split, so the lines of
 * several threads writing to one pipe (a container's or systemd's stdout) never mix within a line.
 */
const atomicPipeWrite = 4096;
/** To a file (whose writes Linux never interleaves) or a stream, larger pieces cost fewer writes. */
const largePiece = 64 * 1024;

/** A file descriptor (1: the process's standard output), written through libuv's thread pool. */
export function fdDestination(fd: number): AccessLogDestination {
  let file = false;
  try {
    file = fs.fstatSync(fd).isFile();
  } catch {
    // Not a descriptor we can look at: the cautious piece size.
  }
  return { write: (piece, done) => fs.write(fd, piece, null, 'latin1', (error) => done(error)), maxPiece: file ? largePiece : atomicPipeWrite };
}

/** A stream, which keeps the order of what is written to it (a test's, or a worker thread's stdout, which one thread writes on). */
export function streamDestination(stream: Writable): AccessLogDestination {
  return { write: (piece, done) => stream.write(piece, (error) => done(error)), maxPiece: largePiece };
}

export interface AccessLogOptions {
  /** Bytes waiting to be written beyond which lines are dropped. */
  maxPending: number;
  dropped(lines: number): void;
}

/** Bounds on what a client chose, so that a line always fits in a piece. */
const maxPath = 1024;
const maxHost = 255;
const maxUserAgent = 256;

/**
 * Lines wait at most this long for a piece to fill: a write per request or per event-loop turn
 * (a thread pool round trip each) cost more than the line itself; a write per full piece does not.
 */
const flushEveryMs = 100;

export class AccessLog {
  readonly #destination: AccessLogDestination;
  readonly #options: AccessLogOptions;
  /** Lines waiting, from `#head` on (taken by moving the index, not by shifting the array). */
  #pending: string[] = [];
  #head = 0;
  #pendingBytes = 0;
  #writing = false;
  #timer: NodeJS.Timeout | undefined;
  /** Someone waits for every line to be written: pieces go out however small. */
  #draining = false;
  #dropped = 0;
  #idle: (() => void)[] = [];
  #lastMs = 0;
  #lastTime = '';

  constructor(destination: AccessLogDestination, options: AccessLogOptions) {
    this.#destination = destination;
    this.#options = options;
  }

  write(entry: AccessEntry): void {
    const line = this.#line(entry);
    if (this.#pendingBytes + line.length > this.#options.maxPending) this.#dropped++;
    else {
      this.#pending.push(line);
      this.#pendingBytes += line.length;
    }
    if (!this.#writing) this.#next();
  }

  /** Resolves once every line written so far has reached the destination (tests; a stopping service). */
  flushed(): Promise<void> {
    if (!this.#writing && this.#head === this.#pending.length && this.#dropped === 0) return Promise.resolve();
    this.#draining = true;
    const idle = new Promise<void>((resolve) => this.#idle.push(resolve));
    if (!this.#writing) this.#next();
    return idle;
  }

  /** With no write in flight: a full piece is written now, less waits for the timer (or a drain). */
  #next(): void {
    if (this.#pendingBytes >= this.#destination.maxPiece || (this.#draining && this.#pendingBytes > 0)) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
      this.#writePiece();
      return;
    }
    if (this.#pendingBytes > 0 || this.#dropped > 0) {
      // What gathered by then goes out, small as it may be; a write under way arms the timer again when it ends.
      this.#timer ??= setTimeout(() => {
        this.#timer = undefined;
        if (this.#writing) return;
        if (this.#pendingBytes > 0) this.#writePiece();
        else this.#next();
      }, flushEveryMs);
      return;
    }
    this.#reportDropped();
    this.#pending = [];
    this.#head = 0;
    this.#draining = false;
    for (const resolve of this.#idle.splice(0)) resolve();
  }

  #reportDropped(): void {
    if (this.#dropped === 0) return;
    this.#options.dropped(this.#dropped);
    this.#dropped = 0;
  }

  #writePiece(): void {
    this.#reportDropped();
    const pending = this.#pending;
    let piece = '';
    while (this.#head < pending.length) {
      const line = pending[this.#head] ?? '';
      if (piece !== '' && piece.length + line.length > this.#destination.maxPiece) break;
      piece += line;
      this.#head++;
    }
    // What was taken goes once it is most of the array: each line is moved at most once more.
    if (this.#head > 1024 && this.#head * 2 > pending.length) {
      this.#pending = pending.slice(this.#head);
      this.#head = 0;
    }
    this.#pendingBytes -= piece.length;
    this.#writing = true;
    // A failed write (the destination closed) loses its lines; the next ones are still tried.
    this.#destination.write(piece, () => {
      this.#writing = false;
      this.#next();
    });
  }

  /** The JSON line, in ASCII (so that its length is its size in bytes). */
  #line(entry: AccessEntry): string {
    const now = Date.now();
    if (now !== this.#lastMs) {
      this.#lastMs = now;
      this.#lastTime = new Date(now).toISOString();
    }
    let line = `{"level":30,"time":"${this.#lastTime}","msg":"access","resource":${entry.resource === undefined ? 'null' : String(entry.resource)}`;
    line += `,"host":${text(entry.host, maxHost)},"method":${text(entry.method, 16)},"path":${text(entry.path, maxPath)}`;
    line += `,"status":${String(entry.status)},"outcome":${text(entry.outcome, 32)},"client":${text(entry.client, 64)}`;
    line += `,"http":"${entry.httpVersion === '2.0' ? '2' : '1.1'}","tls":${String(entry.secure)},"duration_ms":${milliseconds(entry.durationMs)}`;
    if (entry.origin !== undefined) line += `,"origin":${text(entry.origin, 300)}`;
    if (entry.originMs !== undefined) line += `,"origin_ms":${milliseconds(entry.originMs)}`;
    if (entry.bytesSent !== undefined) line += `,"bytes":${String(entry.bytesSent)}`;
    if (entry.userAgent !== undefined) line += `,"user_agent":${text(entry.userAgent, maxUserAgent)}`;
    const waf = entry.waf;
    if (waf !== undefined) {
      line += `,"request_id":${text(waf.requestId, 32)},"waf":{"action":"${waf.action}","score":${String(waf.score)},"rules":[${waf.rules.join(',')}],"categories":[${waf.categories.map((c) => text(c, 32)).join(',')}]}`;
    }
    return `${line}}\n`;
  }
}

/** Printable ASCII but `"` and `\`: a JSON string as it is (most of what is logged, at a third of JSON.stringify's cost). */
const plain = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/** A JSON string of at most `max` characters of `value`, non-ASCII escaped. */
function text(value: string, max: number): string {
  const bounded = value.length > max ? value.slice(0, max) : value;
  if (plain.test(bounded)) return `"${bounded}"`;
  const json = JSON.stringify(bounded);
  // JSON.stringify escapes control characters; what is left beyond ASCII is escaped here.
  return /[^\x20-\x7e]/.test(json) ? json.replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`) : json;
}

function milliseconds(value: number): string {
  return String(Math.round(value * 1000) / 1000);
}
