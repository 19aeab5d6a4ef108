// Opaque bearer secrets (API token secrets, refresh tokens). They are long random values, so a
// fast hash is enough to make the stored form useless to a reader of the database.
import { hash, randomBytes, timingSafeEqual } from 'node:crypto';

export function newSecret(): string {
  return randomBytes(32).toString('base64url');
}

// One-shot hash(): no Hash object per call (every API token request checks its secret).
export function hashSecret(secret: string): string {
  return hash('sha256', secret, 'hex');
}

export function secretMatches(secret: string, storedHash: string): boolean {
  const actual = hash('sha256', secret, 'buffer');
  const expected = Buffer.from(storedHash, 'hex');
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}
