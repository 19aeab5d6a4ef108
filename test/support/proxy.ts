// What proxy tests share: origins on loopback that say who they are and count what they get, a
// client that asks the proxy for any host name (Host header, or SNI over TLS), and resources made
// through the real API.
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { call, login } from './http.ts';
import { adminEmail, adminPassword, type Service } from './service.ts';

export interface Origin {
  /** `127.0.0.1:port`, as origin_data. */
  address: string;
  port: number;
  /** Requests it answered, in order. */
  seen: http.IncomingMessage[];
  close(): Promise<void>;
}

/**
 * An HTTP origin answering every request with 200 and `name` as the body (and in `x-origin`), or
 * with what `handler` does.
 */
export async function startOrigin(name: string, handler?: http.RequestListener): Promise<Origin> {
  const seen: http.IncomingMessage[] = [];
  const server = http.createServer((req, res) => {
    seen.push(req);
    if (handler !== undefined) {
      handler(req, res);
      return;
    }
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/plain', 'x-origin': name });
      res.end(name);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    address: `127.0.0.1:${String(port)}`,
    port,
    seen,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

export interface ProxyAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface AskOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Where the connection comes from (any of 127.0.0.0/8). */
  localAddress?: string;
  /** HTTPS with this SNI name (default: the host), trusting `ca`. */
  tls?: { ca?: string; servername?: string };
}

/** Asks the proxy of `service` for `path` on `host`; a new connection each time. */
export function ask(service: Service, host: string, path = '/', options: AskOptions = {}): Promise<ProxyAnswer> {
  const secure = options.tls !== undefined;
  const requestOptions: https.RequestOptions = {
    host: '127.0.0.1',
    port: secure ? service.proxyHttpsPort : service.proxyHttpPort,
    path,
    method: options.method ?? 'GET',
    headers: { host, ...options.headers },
    agent: false,
    ...(options.localAddress === undefined ? {} : { localAddress: options.localAddress }),
    ...(secure ? { servername: options.tls?.servername ?? host, ca: options.tls?.ca, rejectUnauthorized: options.tls?.ca !== undefined } : {}),
  };
  return new Promise((resolve, reject) => {
    const request = (secure ? https : http).request(requestOptions, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString() }));
      res.on('error', reject);
    });
    request.on('error', reject);
    request.end(options.body);
  });
}

/** Logs in as the first administrator: the `authorization` header value. */
export async function adminAuth(service: Service): Promise<string> {
  const { access } = await login(service.url, adminEmail, adminPassword);
  return `Bearer ${access}`;
}

/** Creates a resource through the API; fails the test on anything but 201. */
export async function createResource(service: Service, auth: string, body: Record<string, unknown>): Promise<{ id: number } & Record<string, unknown>> {
  const created = await call<{ id: number } & Record<string, unknown>>(service.url, 'POST', '/security/resources', { auth, body });
  if (created.status !== 201) throw new Error(`creating the resource failed: ${String(created.status)} ${created.text}`);
  return created.body;
}
