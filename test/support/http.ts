// A small JSON client over fetch for the tests, and one over node:http that sends from a chosen
// local address (fetch cannot): on Linux all of 127.0.0.0/8 is loopback, so one test can be many clients.
import http from 'node:http';

export interface Response<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  auth?: string;
  body?: unknown;
  /** A raw body sent as is (with contentType). */
  raw?: string | Buffer;
  contentType?: string;
  headers?: Record<string, string>;
}

export async function call<T = any>(base: string, method: string, path: string, options: RequestOptions = {}): Promise<Response<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.auth !== undefined) headers['authorization'] = options.auth;
  let body: string | Buffer | undefined;
  if (options.raw !== undefined) body = options.raw;
  else if (options.body !== undefined) body = JSON.stringify(options.body);
  if (body !== undefined || options.contentType !== undefined) headers['content-type'] = options.contentType ?? 'application/json';
  const response = await fetch(`${base}${path}`, { method, headers, ...(body === undefined ? {} : { body }) });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: response.status, headers: response.headers, body: parsed as T, text };
}

export interface FromOptions {
  /** The address the connection comes from: any of 127.0.0.0/8, or an IPv6 address on the loopback. */
  localAddress: string;
  /** Reuses connections (keep-alive agents pool per local address); default: a new one each time. */
  agent?: http.Agent;
  /** Gives up after this long with status 0; default 30 s. */
  timeoutMs?: number;
}

/** As `call`, sent from `options.localAddress`; status 0 when the request failed or timed out. */
export function callFrom<T = any>(base: string, method: string, path: string, options: RequestOptions & FromOptions): Promise<Response<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.auth !== undefined) headers['authorization'] = options.auth;
  const body = options.body === undefined ? undefined : JSON.stringify(options.body);
  if (body !== undefined) headers['content-type'] = 'application/json';
  return new Promise((resolve) => {
    const failed = (text: string) => resolve({ status: 0, headers: new Headers(), body: undefined as T, text });
    const request = http.request(`${base}${path}`, {
      method,
      headers,
      localAddress: options.localAddress,
      ...(options.agent === undefined ? {} : { agent: options.agent }),
      timeout: options.timeoutMs ?? 30_000,
    }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', (e) => failed(e.message));
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString();
        let parsed: unknown;
        try {
          parsed = text === '' ? undefined : JSON.parse(text);
        } catch {
          parsed = undefined;
        }
        const received = new Headers();
        for (const [name, value] of Object.entries(response.headers)) {
          if (typeof value === 'string') received.set(name, value);
        }
        resolve({ status: response.statusCode ?? 0, headers: received, body: parsed as T, text });
      });
    });
    request.on('timeout', () => request.destroy(new Error('timed out')));
    request.on('error', (e) => failed(e.message));
    request.end(body);
  });
}

/** Logs in as a real client does: a 429 is retried after its Retry-After. */
export async function login(base: string, username: string, password: string): Promise<{ access: string; refresh: string }> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const response = await call<{ access: string; refresh: string }>(base, 'POST', '/iam/auth/jwt/login', { body: { username, password } });
    if (response.status === 200) return response.body;
    if (response.status !== 429) throw new Error(`login failed: ${response.status} ${response.text}`);
    await new Promise((resolve) => setTimeout(resolve, Number(response.headers.get('retry-after') ?? 1) * 1000));
  }
  throw new Error('login still throttled after 5 attempts');
}

export const bearer = (token: string) => `Bearer ${token}`;
export const apiKey = (token: string) => `APIKey ${token}`;
