// Calls to the edgeplane API with the signed-in user's access token. A 401 is answered once by
// refreshing the session and trying again; errors arrive as ApiError with the API's code and fields.
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly fields: Record<string, string>;
  readonly retryAfter: number | undefined;

  constructor(status: number, code: string, message: string, fields: Record<string, string>, retryAfter?: number) {
    super(message);
    this.status = status;
    this.code = code;
    this.fields = fields;
    this.retryAfter = retryAfter;
  }
}

export interface Credentials {
  /** The access token, or undefined when signed out. */
  access(): string | undefined;
  /** Gets a new access token; false when the session is over. */
  renew(): Promise<boolean>;
}

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** A body sent as it is, under its own media type. */
class RawBody {
  readonly text: string;
  readonly type: string;

  constructor(text: string, type: string) {
    this.text = text;
    this.type = type;
  }
}

export class Api {
  private readonly credentials: Credentials;

  constructor(credentials: Credentials) {
    this.credentials = credentials;
  }

  get<T>(path: string, query?: Record<string, string | number | boolean | undefined>): Promise<T> {
    return this.request<T>('GET', path + queryString(query));
  }

  post<T>(path: string, body?: unknown): Promise<T> {
    return this.request<T>('POST', path, body);
  }

  put<T>(path: string, body?: unknown): Promise<T> {
    return this.request<T>('PUT', path, body);
  }

  patch<T>(path: string, body?: unknown): Promise<T> {
    return this.request<T>('PATCH', path, body);
  }

  delete<T>(path: string): Promise<T> {
    return this.request<T>('DELETE', path);
  }

  /** POSTs `text` as it is (a YAML file), not as JSON. */
  postText<T>(path: string, text: string, type = 'text/plain'): Promise<T> {
    return this.request<T>('POST', path, new RawBody(text, type));
  }

  /** `body` is sent as JSON, or as it is when given as RawBody. */
  async request<T>(method: Method, path: string, body?: unknown): Promise<T> {
    let response = await this.send(method, path, body);
    if (response.status === 401 && (await this.credentials.renew())) response = await this.send(method, path, body);
    return read<T>(response);
  }

  private send(method: Method, path: string, body: unknown): Promise<Response> {
    const headers: Record<string, string> = {};
    const token = this.credentials.access();
    if (token !== undefined) headers.authorization = `Bearer ${token}`;
    if (body instanceof RawBody) {
      headers['content-type'] = body.type;
      return fetch(path, { method, headers, body: body.text });
    }
    if (body !== undefined) headers['content-type'] = 'application/json';
    return fetch(path, { method, headers, body: body === undefined ? null : JSON.stringify(body) });
  }
}

/** A response's JSON, or the API's error body as an ApiError. */
export async function read<T>(response: Response): Promise<T> {
  const text = await response.text();
  const body: unknown = text === '' ? null : safeParse(text);
  if (response.ok) return body as T;
  const error = (body ?? {}) as { error?: unknown; code?: unknown; fields?: unknown };
  const retryAfter = Number(response.headers.get('retry-after') ?? NaN);
  throw new ApiError(
    response.status,
    typeof error.code === 'string' ? error.code : 'http_error',
    typeof error.error === 'string' ? error.error : `${response.status} ${response.statusText}`,
    typeof error.fields === 'object' && error.fields !== null ? (error.fields as Record<string, string>) : {},
    Number.isFinite(retryAfter) ? retryAfter : undefined,
  );
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return { error: text.slice(0, 200) };
  }
}

export function queryString(query: Record<string, string | number | boolean | undefined> | undefined): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) if (value !== undefined && value !== '') params.set(key, String(value));
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}

/** A path segment: zone and RRset names may hold '*' or other characters a path must escape. */
export function segment(value: string | number): string {
  return encodeURIComponent(String(value));
}

/** What to tell the user about a failed call. */
export function describeError(error: unknown): string {
  if (error instanceof ApiError) {
    if (error.status === 429) return `${error.message}. Try again in ${error.retryAfter ?? 1} s.`;
    return error.message;
  }
  return error instanceof Error ? error.message : String(error);
}
