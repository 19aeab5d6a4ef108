// The error model of the whole API: every failure becomes
// {"error": "<message>", "code": "<snake_case>", "fields"?: {...}} with a matching HTTP status.

export type FieldErrors = Record<string, string>;

export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly fields: FieldErrors | undefined;
  readonly headers: Record<string, string>;

  constructor(status: number, code: string, message: string, options: { fields?: FieldErrors; headers?: Record<string, string> } = {}) {
    super(message);
    this.status = status;
    this.code = code;
    this.fields = options.fields;
    this.headers = options.headers ?? {};
  }

  body(): { error: string; code: string; fields?: FieldErrors } {
    return this.fields === undefined
      ? { error: this.message, code: this.code }
      : { error: this.message, code: this.code, fields: this.fields };
  }
}

export const invalid = (message: string, fields?: FieldErrors) =>
  new ApiError(400, 'invalid_input', message, fields === undefined ? {} : { fields });
export const unauthorized = (message = 'authentication required') => new ApiError(401, 'unauthorized', message);
export const forbidden = (message: string) => new ApiError(403, 'forbidden', message);
export const notFound = (message: string) => new ApiError(404, 'not_found', message);
export const conflict = (message: string, fields?: FieldErrors) => new ApiError(409, 'conflict', message, fields === undefined ? {} : { fields });
export const throttled = (retryAfterSeconds: number, message = 'too many requests, retry later') =>
  new ApiError(429, 'too_many_requests', message, {
    headers: { 'retry-after': String(retryAfterSeconds) },
  });
