// The proxy's edge without the rest of the service, as a proxy thread assembles it: a connection
// guard in front of the proxy's HTTP/1.x engine (or its HTTPS listener) with the server limits,
// counted in a metrics registry, forwarding to a real origin the way the pipeline does (a declared
// body over the limit refused first, the body through its limit). And a raw TCP client for what
// well-behaved clients never send.
import http from 'node:http';
import net from 'node:net';
import tls from 'node:tls';
import { Registry } from 'prom-client';
import { sharedCaps } from '../../src/net/connection-admission.ts';
import { BodyRefused, declaredBodyProblem, limitBody } from '../../src/security/proxy/body-limit.ts';
import { ConnectionGuard, connectionClient } from '../../src/security/proxy/connection-guard.ts';
import type { ProxyRequest, ProxyResponse } from '../../src/security/proxy/exchange.ts';
import { proxyMetrics, type ListenerName } from '../../src/security/proxy/proxy-metrics.ts';
import { http1Serving, httpListener } from '../../src/security/proxy/listeners.ts';
import { RequestTurns } from '../../src/security/proxy/http1/request-turns.ts';
import { closeIdleSessions, type ProxyLimits } from '../../src/security/proxy/server-limits.ts';
import { createHttpsListener } from '../../src/security/proxy/tls/https-listener.ts';

export const testLimits: ProxyLimits = {
  headerTimeoutMs: 2000,
  idleTimeoutMs: 5000,
  bodyTimeoutMs: 2000,
  bodyMinRate: 500,
  maxHeaderSize: 16 * 1024,
  maxBodySize: 1024 * 1024,
};

export interface EdgeOptions {
  proxyProtocol?: boolean;
  limits?: Partial<ProxyLimits>;
  maxClients?: number;
  maxPerClient?: number;
  /** Forward to this origin (`127.0.0.1:port`); otherwise answer `{ client }` as JSON. */
  origin?: number;
  /** HTTPS (HTTP/1.1 and h2) with this certificate. */
  tls?: { key: string; cert: string };
}

export interface Edge {
  port: number;
  registry: Registry;
  /** The Prometheus text of the edge's metrics. */
  metrics(): Promise<string>;
  guard: ConnectionGuard;
  close(): Promise<void>;
}

export async function startEdge(options: EdgeOptions = {}): Promise<Edge> {
  const limits = { ...testLimits, ...options.limits };
  const registry = new Registry();
  const metrics = proxyMetrics(registry);
  const listener: ListenerName = options.tls === undefined ? 'http' : 'https';
  const handler = (req: ProxyRequest, res: ProxyResponse) => {
    const problem = declaredBodyProblem(req, limits.maxBodySize);
    if (problem !== undefined) {
      res.writeHead(problem.status, req.httpVersionMajor === 1 ? { connection: 'close' } : {}).end(problem.body ?? '');
      return;
    }
    if (options.origin === undefined) {
      req.resume();
      req.on('end', () => res.end(JSON.stringify({ client: connectionClient(req.socket) })));
      return;
    }
    forwardTo(options.origin, req, res, limits);
  };
  const http1 = http1Serving({ request: handler, upgrade: (_req, socket) => socket.destroy(), clientError: (reason) => metrics.clientError(listener, reason) }, limits, new RequestTurns());
  let server: net.Server;
  if (options.tls === undefined) server = httpListener(http1);
  else {
    // The proxy's own HTTPS listener, with h2 for every name, one certificate for all.
    const context = tls.createSecureContext(options.tls);
    const secure = createHttpsListener({
      contextFor: () => context,
      http2For: () => true,
      onRequest: handler,
      onHttp1: (socket) => http1.serve(socket),
      limits: { handshakeTimeoutMs: limits.headerTimeoutMs, maxHeaderSize: limits.maxHeaderSize },
    });
    closeIdleSessions(secure, limits.idleTimeoutMs);
    server = secure;
  }
  const guard = new ConnectionGuard(server, {
    proxyProtocol: options.proxyProtocol ?? false,
    headerTimeoutMs: limits.headerTimeoutMs,
    caps: sharedCaps({ maxClients: options.maxClients ?? 1000, maxPerClient: options.maxPerClient ?? 1000 }),
    events: metrics.connections(listener),
  });
  await new Promise<void>((resolve) => guard.server.listen(0, '127.0.0.1', resolve));
  return {
    port: (guard.server.address() as net.AddressInfo).port,
    registry,
    metrics: () => registry.metrics(),
    guard,
    close: async () => {
      await guard.close();
      http1.stop();
    },
  };
}

/** The request to the origin, its body through the limit; a refused body answered with its status and the connection closed. */
function forwardTo(port: number, req: ProxyRequest, res: ProxyResponse, limits: ProxyLimits): void {
  const outgoing = http.request({ host: '127.0.0.1', port, method: req.method, path: req.url, headers: { host: req.headers.host } }, (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.headers);
    answer.on('data', (chunk: Buffer) => {
      if (!res.write(chunk)) {
        answer.pause();
        res.once('drain', () => answer.resume());
      }
    });
    answer.on('end', () => res.end());
  });
  const hasBody = req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined;
  if (!hasBody) {
    outgoing.end();
    return;
  }
  const body = limitBody(req, limits);
  body.on('error', (error) => {
    outgoing.destroy();
    if (res.headersSent) res.destroy();
    else res.writeHead(error instanceof BodyRefused ? error.status : 502, { connection: 'close' }).end(error.message);
  });
  outgoing.on('error', () => undefined);
  body.pipe(outgoing);
}

/** An origin counting the requests it received (headers) and completed (body read to its end). */
export interface CountingOrigin {
  port: number;
  started: number;
  completed: number;
  close(): Promise<void>;
}

export async function startCountingOrigin(): Promise<CountingOrigin> {
  const origin: CountingOrigin = { port: 0, started: 0, completed: 0, close: () => Promise.resolve() };
  const server = http.createServer((req, res) => {
    origin.started++;
    let bytes = 0;
    req.on('data', (chunk: Buffer) => (bytes += chunk.length));
    req.on('end', () => {
      origin.completed++;
      res.end(`origin read ${String(bytes)} bytes`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin.port = (server.address() as net.AddressInfo).port;
  origin.close = () =>
    new Promise((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return origin;
}

export interface RawResult {
  /** What the server sent, as latin1. */
  received: string;
  /** The server closed the connection (FIN or reset) before the wait ended. */
  closed: boolean;
  reset: boolean;
  /** Milliseconds from connecting to the close (or to the end of the wait). */
  ms: number;
}

export interface RawOptions {
  /** Sent after connecting, piece by piece, `gapMs` apart. */
  pieces?: (string | Buffer)[];
  gapMs?: number;
  /** Give up waiting for the close after this long. */
  waitMs?: number;
  localAddress?: string;
  /** Stop waiting once what was received so far satisfies this (an answer kept alive). */
  until?: (received: string) => boolean;
}

/** A raw TCP exchange: sends the pieces, collects what comes back until the server closes or the wait ends. */
export function raw(port: number, options: RawOptions): Promise<RawResult> {
  const { pieces = [], gapMs = 0, waitMs = 3000 } = options;
  return new Promise((resolve) => {
    const started = performance.now();
    const socket = net.connect({ port, host: '127.0.0.1', ...(options.localAddress === undefined ? {} : { localAddress: options.localAddress }) });
    const chunks: Buffer[] = [];
    let reset = false;
    let sending: NodeJS.Timeout | undefined;
    const done = (closed: boolean) => {
      clearTimeout(timer);
      clearTimeout(sending);
      socket.destroy();
      resolve({ received: Buffer.concat(chunks).toString('latin1'), closed, reset, ms: performance.now() - started });
    };
    const timer = setTimeout(() => done(false), waitMs);
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      if (options.until?.(Buffer.concat(chunks).toString('latin1')) === true) done(false);
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      reset ||= error.code === 'ECONNRESET';
    });
    socket.on('close', () => done(true));
    socket.on('connect', () => {
      let next = 0;
      const send = () => {
        const piece = pieces[next++];
        if (piece === undefined || socket.destroyed) return;
        socket.write(piece);
        if (gapMs > 0) sending = setTimeout(send, gapMs);
        else send();
      };
      send();
    });
  });
}

/** A value of one series in Prometheus text, 0 when absent. */
export function metricValue(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}
