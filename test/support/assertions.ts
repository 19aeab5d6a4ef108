// Assertions shared by the API tests.
import assert from 'node:assert/strict';
import type { Response } from './http.ts';

/** The response is an error of the given status with the error model's body. */
export function assertError(response: Response, status: number, code?: string): void {
  assert.equal(response.status, status, `expected ${status}, got ${response.status}: ${response.text}`);
  assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
  const body = response.body as { error?: unknown; code?: unknown };
  assert.equal(typeof body.error, 'string', `error body without "error": ${response.text}`);
  assert.equal(typeof body.code, 'string', `error body without "code": ${response.text}`);
  if (code !== undefined) assert.equal(body.code, code);
}
