// The keep-alive connections to one origin, per scheme (origin-connection.ts): made when a request
// needs one, at most `connections` of them, kept while idle for the next request. Idle connections
// are a stack: the one used last serves next (its TCP and TLS state is the warmest, and the others
// can age out). A request finding no idle connection and the cap reached waits for one, in order,
// but only up to `maxWaiting` requests: beyond, it fails at once (busy) instead of queueing without
// bound behind an origin that does not keep up.
//
// One sweep a few times per timeout window does every connection's timing (connect, answer head,
// pauses in the body, idling), for every pool of the thread: requests set no timer of their own.
import net, { isIP, type Socket } from 'node:net';
import tls from 'node:tls';
import type { OriginPolicy } from '../policy.ts';
import { PrivateOriginError, publicLookup, refusedAddress } from './origin-address.ts';
import { OriginConnection, OriginError, type OriginHandler } from './origin-connection.ts';

export { PrivateOriginError } from './origin-address.ts';

export interface PoolOptions {
  /** Connect to loopback, private and other non-public addresses (EDGEPLANE_PROXY_ALLOW_PRIVATE_ORIGINS). */
  allowPrivateOrigins: boolean;
  /** Connections per origin and scheme at most; requests beyond wait for one. */
  connections: number;
  /** Requests waiting for a connection per origin and scheme at most; beyond, a request fails at once (503). Default: 4 × connections. */
  maxWaiting?: number | undefined;
  connectTimeoutMs: number;
  /** From the request sent to the answer's headers (a request body being sent keeps it from running out). */
  headersTimeoutMs: number;
  /** Between two chunks of the answer's body (not counted while the client is slow to read). */
  bodyTimeoutMs: number;
  /** How long an idle connection is kept; an origin's `Keep-Alive: timeout=` hint lowers it. */
  keepAliveTimeoutMs: number;
}

export const defaultPoolOptions: PoolOptions = {
  allowPrivateOrigins: false,
  connections: 256,
  connectTimeoutMs: 5_000,
  headersTimeoutMs: 60_000,
  bodyTimeoutMs: 60_000,
  keepAliveTimeoutMs: 30_000,
};

/** Shared: these carry nothing of the request they fail. */
const busy = new OriginError('EDGEPLANE_ORIGIN_BUSY', 'every connection to the origin is busy and too many requests wait for one');
const closed = new OriginError('EDGEPLANE_POOL_CLOSED', 'the origin\'s connections were closed (its resource changed)');

/** The pools with connections, by sweep period: one timer each (in practice one, every pool having the same options). */
const sweeps = new Map<number, { timer: NodeJS.Timeout; pools: Set<OriginPool> }>();

function watch(pool: OriginPool, period: number): void {
  let sweep = sweeps.get(period);
  if (sweep === undefined) {
    const pools = new Set<OriginPool>();
    const timer = setInterval(() => {
      const now = performance.now();
      for (const watched of pools) watched.tick(now);
    }, period).unref();
    sweep = { timer, pools };
    sweeps.set(period, sweep);
  }
  sweep.pools.add(pool);
}

function unwatch(pool: OriginPool, period: number): void {
  const sweep = sweeps.get(period);
  if (sweep === undefined) return;
  sweep.pools.delete(pool);
  if (sweep.pools.size > 0) return;
  clearInterval(sweep.timer);
  sweeps.delete(period);
}

/** The connections to one origin over one scheme. */
export class OriginPool {
  readonly options: PoolOptions;
  readonly https: boolean;
  readonly #host: string;
  readonly #port: number;
  readonly #servername: string | undefined;
  readonly #maxWaiting: number;
  /** Every connection of the pool (connecting, busy or idle). */
  readonly #live = new Set<OriginConnection>();
  readonly #idle: OriginConnection[] = [];
  readonly #waiting: OriginHandler[] = [];
  /** The last TLS session the origin gave: the next connection resumes it (no full handshake). */
  #session: Buffer | undefined;
  readonly #sweepMs: number;
  #closing: PromiseWithResolvers<undefined> | undefined;

  constructor(host: string, port: number, https: boolean, servername: string | undefined, options: PoolOptions) {
    this.#host = host;
    this.#port = port;
    this.https = https;
    this.#servername = servername;
    this.options = options;
    this.#maxWaiting = options.maxWaiting ?? options.connections * 4;
    // A timeout fires within an eighth of the shortest one late, at most half a second (the margin
    // kept under an origin's own keep-alive time, origin-connection.ts).
    const shortest = Math.min(options.connectTimeoutMs, options.headersTimeoutMs, options.bodyTimeoutMs, options.keepAliveTimeoutMs);
    this.#sweepMs = Math.max(10, Math.min(500, Math.floor(shortest / 8)));
  }

  /**
   * Sends `handler`'s request on an idle connection, a new one, or once one is free. `fresh`: not on
   * a kept-alive connection (the retry of a request a kept-alive one lost).
   */
  dispatch(handler: OriginHandler, fresh: boolean): void {
    if (this.#closing !== undefined) {
      handler.onResponseError(closed, false);
      return;
    }
    if (!fresh) {
      let idle = this.#idle.pop();
      // A connection that failed a moment ago may not have been told yet ('close' comes a tick later).
      while (idle?.socket.destroyed === true) {
        idle.destroy();
        idle = this.#idle.pop();
      }
      if (idle !== undefined) {
        idle.send(handler);
        return;
      }
    } else if (this.#live.size >= this.options.connections) {
      // Make room: an idle connection may well be as stale as the one that failed.
      this.#idle.shift()?.destroy();
    }
    if (this.#live.size < this.options.connections) this.#open(handler);
    else if (this.#waiting.length < this.#maxWaiting) this.#waiting.push(handler);
    else handler.onResponseError(busy, false);
  }

  /** The request gives up (its client left): out of the queue, or off its connection. */
  cancel(handler: OriginHandler): void {
    const connection = handler.connection;
    if (connection !== undefined) {
      connection.abort(handler);
      return;
    }
    const at = this.#waiting.indexOf(handler);
    if (at >= 0) this.#waiting.splice(at, 1);
  }

  /** A connection is free: the next waiting request takes it, else it idles. */
  release(connection: OriginConnection): void {
    const next = this.#waiting.shift();
    if (next !== undefined) connection.send(next);
    else if (this.#closing !== undefined) connection.destroy();
    else this.#idle.push(connection);
  }

  /** A connection is gone (closed, failed, upgraded): its place may serve a waiting request. */
  remove(connection: OriginConnection): void {
    if (!this.#live.delete(connection)) return;
    const at = this.#idle.lastIndexOf(connection);
    if (at >= 0) this.#idle.splice(at, 1);
    const next = this.#waiting.shift();
    if (next !== undefined) this.#open(next);
    else if (this.#live.size === 0) this.#idled();
  }

  #open(handler: OriginHandler | undefined): void {
    const connection = new OriginConnection(this, this.#connect(), handler);
    if (this.#live.size === 0) watch(this, this.#sweepMs);
    this.#live.add(connection);
  }

  #connect(): Socket {
    const lookup = this.options.allowPrivateOrigins ? undefined : publicLookup;
    let socket: Socket;
    if (this.https) {
      socket = tls.connect({
        host: this.#host,
        port: this.#port,
        ...(this.#servername === undefined ? {} : { servername: this.#servername }),
        // Origin certificates are not verified, as at the provider: origins commonly serve self-signed ones.
        rejectUnauthorized: false,
        ALPNProtocols: ['http/1.1'],
        ...(this.#session === undefined ? {} : { session: this.#session }),
        ...(lookup === undefined ? {} : { lookup }),
      });
      socket.on('session', this.#keepSession);
    } else {
      socket = net.connect({ host: this.#host, port: this.#port, ...(lookup === undefined ? {} : { lookup }) });
    }
    // Small heads and answers go out at once; a dead peer is found by the kernel in the end.
    socket.setNoDelay(true);
    socket.setKeepAlive(true, 60_000);
    return socket;
  }

  readonly #keepSession = (session: Buffer): void => {
    this.#session = session;
  };

  /** The sweep: each connection's current wait. */
  tick(now: number): void {
    for (const connection of this.#live) connection.tick(now);
  }

  /** No connection left: out of the sweep; a closing pool is closed. */
  #idled(): void {
    unwatch(this, this.#sweepMs);
    if (this.#waiting.length === 0) this.#closing?.resolve(undefined);
  }

  /** Closes idle connections now, the others once their request is answered; resolves when none is left. */
  close(): Promise<void> {
    const closing = (this.#closing ??= Promise.withResolvers<undefined>());
    for (const connection of this.#idle.splice(0)) connection.destroy();
    if (this.#live.size === 0) this.#idled();
    return closing.promise;
  }
}

/** The pools towards one origin, one per scheme, made when first needed. */
export class OriginPools {
  readonly #host: string;
  readonly #ports: { http: number; https: number };
  /** For HTTPS: the origin's name, or for an address the resource's name (the site the origin serves). */
  readonly servername: string | undefined;
  /** Why every connection to this origin is refused (a non-public address), or undefined. */
  readonly refusal: PrivateOriginError | undefined;
  readonly #options: PoolOptions;
  #http: OriginPool | undefined;
  #https: OriginPool | undefined;

  constructor(origin: OriginPolicy, siteName: string | undefined, options: PoolOptions) {
    const literal = isIP(origin.host) !== 0;
    this.#host = origin.host;
    this.#ports = { http: origin.port ?? 80, https: origin.port ?? 443 };
    this.servername = literal ? siteName : origin.host;
    this.refusal = literal && !options.allowPrivateOrigins ? refusedAddress(origin.host) : undefined;
    this.#options = options;
  }

  /** The pool for one scheme towards this origin. */
  pool(https: boolean): OriginPool {
    if (https) return (this.#https ??= new OriginPool(this.#host, this.#ports.https, true, this.servername, this.#options));
    return (this.#http ??= new OriginPool(this.#host, this.#ports.http, false, undefined, this.#options));
  }

  /** Closes the pools once their requests in flight are answered. */
  async close(): Promise<void> {
    await Promise.all([this.#http?.close(), this.#https?.close()]);
  }
}
