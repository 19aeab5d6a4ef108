// A small JSON client over fetch for the tests.

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
