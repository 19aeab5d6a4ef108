// A small proxy around forward()/forwardUpgrade() for the origin tests: the proxy's own HTTP/1.x
// engine (or node:http2 with TLS, HTTP/1.1 there served by node:http) building an Exchange from the
// request, and real origins on 127.0.0.1. The client address is taken from `x-test-client` when
// given (one test, many clients), else from the socket.
import { once } from 'node:events';
import http from 'node:http';
import http2 from 'node:http2';
import type { AddressInfo, Server, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Exchange, ProxyRequest, ProxyResponse } from '../../../src/security/proxy/exchange.ts';
import type { OriginMode, ResourcePolicy } from '../../../src/security/proxy/policy.ts';
import { forward, type ForwardResult } from '../../../src/security/proxy/origins/forward.ts';
import { compileOrigins, type OriginOptions, type OriginSet } from '../../../src/security/proxy/origins/origin-set.ts';
import { forwardUpgrade } from '../../../src/security/proxy/origins/websocket.ts';
import { settingDefaults, type Settings } from '../../../src/security/resource-input.ts';
import type { KeyPair } from '../../support/certificates.ts';
import { loadConfig } from '../../../src/config.ts';
import { proxySettings } from '../../../src/security/proxy/proxy-role.ts';
import { http1Serving, httpListener } from '../../../src/security/proxy/listeners.ts';
import { RequestTurns } from '../../../src/security/proxy/http1/request-turns.ts';

export interface OriginSpec {
  host?: string;
  port: number | undefined;
  weight?: number;
  mode?: OriginMode;
}

export function resourcePolicy(origins: OriginSpec[], settings: Partial<Settings> = {}): ResourcePolicy {
  return {
    id: 1,
    accountId: 1,
    name: 'site.example',
    hosts: ['site.example'],
    served: true,
    settings: { ...settingDefaults, ...settings },
    origins: origins.map((origin, i) => ({ id: i + 1, host: origin.host ?? '127.0.0.1', port: origin.port, weight: origin.weight ?? 1, mode: origin.mode ?? 'primary' })),
    rules: [],
    whitelist: [],
    blacklist: [],
    tls: undefined,
    wantsManagedCertificate: false,
  };
}

/** An origin set for tests: private origins allowed unless said otherwise, short windows. */
export function originSet(origins: OriginSpec[], settings: Partial<Settings> = {}, options: Partial<OriginOptions> & { allowPrivateOrigins?: boolean } = {}): OriginSet {
  const { allowPrivateOrigins = true, ...tuning } = options;
  return compileOrigins(resourcePolicy(origins, settings), { settings: { allowPrivateOrigins, origins: { failTimeoutMs: 200, ...tuning } } });
}

export interface Origin {
  name: string;
  port: number;
  server: http.Server;
  /** Requests it received, with their headers as received. */
  seen: http.IncomingHttpHeaders[];
  stop(): Promise<void>;
  /** Listens again on the same port. */
  restart(): Promise<void>;
}

type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

/** An origin answering its own name (or as `handler` says), recording what it receives. */
export async function startOrigin(name: string, handler?: Handler, port = 0): Promise<Origin> {
  const seen: http.IncomingHttpHeaders[] = [];
  const server = http.createServer((req, res) => {
    seen.push(req.headers);
    if (handler !== undefined) {
      handler(req, res);
      return;
    }
    req.resume();
    req.on('end', () => res.end(name));
  });
  server.listen(port, '127.0.0.1');
  await once(server, 'listening');
  const origin: Origin = {
    name,
    port: (server.address() as AddressInfo).port,
    server,
    seen,
    async stop() {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
    async restart() {
      server.listen(origin.port, '127.0.0.1');
      await once(server, 'listening');
    },
  };
  return origin;
}

/** A port nothing listens on. */
export async function deadPort(): Promise<number> {
  const server = http.createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  server.close();
  await once(server, 'close');
  return port;
}

export interface Proxy {
  url: string;
  port: number;
  results: ForwardResult[];
  close(): Promise<void>;
}

function exchangeOf(req: ProxyRequest, res: ProxyResponse | undefined, secure: boolean): Exchange {
  const authority = req.headers[':authority'] ?? req.headers.host;
  const testClient = req.headers['x-test-client'];
  const hsts = req.headers['x-test-hsts'] !== undefined;
  return {
    req,
    res: res as ProxyResponse,
    client: typeof testClient === 'string' ? testClient : (req.socket.remoteAddress ?? '').replace(/^::ffff:/, ''),
    secure,
    host: String(authority).replace(/:\d+$/, ''),
    method: req.method ?? 'GET',
    path: (req.url ?? '/').split('?')[0] ?? '/',
    answerHeaders: hsts ? { 'Strict-Transport-Security': 'max-age=60' } : {},
  };
}

/** The body limits of the default configuration. */
const limits = proxySettings(loadConfig({})).limits;

/** A proxy forwarding every request to `origins`: plain HTTP/1.1, or with `tls` HTTPS offering h2 and HTTP/1.1. */
export async function startProxy(origins: OriginSet, tls?: KeyPair): Promise<Proxy> {
  const results: ForwardResult[] = [];
  const target = { origins };
  const onRequest = (req: ProxyRequest, res: ProxyResponse) => {
    const run = () => void forward(exchangeOf(req, res, tls !== undefined), target, limits).then((result) => results.push({ ...result }));
    // As slow checks before forwarding would (a remote rate-limit store, say).
    const delay = req.headers['x-test-delay'];
    if (typeof delay === 'string') setTimeout(run, Number(delay));
    else run();
  };
  const onUpgrade = (req: ProxyRequest, socket: Duplex, head: Buffer) => {
    void forwardUpgrade(req, socket, head, exchangeOf(req, undefined, tls !== undefined), target).then((result) => results.push({ ...result }));
  };
  const http1 = http1Serving({ request: onRequest, upgrade: onUpgrade, clientError: () => undefined }, limits, new RequestTurns());
  let server: Server;
  if (tls === undefined) {
    server = httpListener(http1);
  } else {
    const secure = http2.createSecureServer({ cert: tls.crt, key: tls.key, allowHTTP1: true }, onRequest);
    secure.on('upgrade', onUpgrade);
    server = secure;
  }
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `${tls === undefined ? 'http' : 'https'}://127.0.0.1:${String(port)}`,
    port,
    results,
    async close() {
      for (const socket of sockets) socket.destroy();
      server.close();
      http1.stop();
      await origins.close();
    },
  };
}

export interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** One HTTP/1.1 request through node:http, headers exactly as given (Host: site.example unless given). */
export function send(url: string, options: { method?: string; headers?: Record<string, string>; body?: string; agent?: http.Agent } = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method: options.method ?? 'GET', headers: { host: 'site.example', ...options.headers }, agent: options.agent ?? false }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks).toString() }));
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end(options.body);
  });
}
