// The bot challenge's proof of work: the proxy issues a seed, `issued.MAC(secret, seed | subject |
// issued)` (the subject: the resource and the client key), and the browser's JavaScript finds a
// nonce for which SHA-256(`seed.nonce`) starts with `difficulty` zero bits. Nothing is stored: the
// seed carries its own time and proves it is ours and this client's. Checking a solution costs one
// SHA-256 and one HMAC over some tens of bytes, whatever a client sends (malformed input costs a
// regular expression over at most 34 characters).
import { createHash, timingSafeEqual } from 'node:crypto';
import { hmacSha256 } from './keyed-mac.ts';

/** Leading zero bits of the hash: 2^16 tries on average, tens of milliseconds of a browser's JavaScript. */
export const difficulty = 16;
/** How long after it was issued a seed may be solved: the page solves it at once. */
export const seedLifetimeSeconds = 300;
/** How far ahead of this node's clock another node's may be (the seed may have been issued there). */
const clockSkewSeconds = 60;

/** `issued.mac`: ten digits (UNIX seconds), 16 bytes of MAC in base64url. With `.nonce`, at most 46
 *  characters, so the browser hashes one SHA-256 block per try. */
const seedPattern = /^(\d{10})\.([\w-]{22})$/;
const noncePattern = /^\d{1,12}$/;

function seedMac(secret: Buffer, subject: string, issued: number): string {
  return hmacSha256(secret, `seed|${subject}|${issued}`).subarray(0, 16).toString('base64url');
}

export function issueSeed(secret: Buffer, subject: string, now: number): string {
  return `${now}.${seedMac(secret, subject, now)}`;
}

/** Whether `digest` starts with `bits` zero bits. */
function leadingZeros(digest: Buffer, bits: number): boolean {
  const whole = bits >>> 3;
  for (let i = 0; i < whole; i++) if (digest[i] !== 0) return false;
  const rest = bits & 7;
  return rest === 0 || (digest[whole] ?? 0) >>> (8 - rest) === 0;
}

/** `expired`: a seed of ours for this subject, solved, but issued too long ago. */
export type ProofCheck = 'valid' | 'expired' | 'invalid';

export function checkProof(secret: Buffer, subject: string, seed: string, nonce: string, now: number): ProofCheck {
  const match = seedPattern.exec(seed);
  if (match === null || !noncePattern.test(nonce)) return 'invalid';
  if (!leadingZeros(createHash('sha256').update(`${seed}.${nonce}`).digest(), difficulty)) return 'invalid';
  const issued = Number(match[1]);
  if (!timingSafeEqual(Buffer.from(match[2] ?? ''), Buffer.from(seedMac(secret, subject, issued)))) return 'invalid';
  if (issued > now + clockSkewSeconds) return 'invalid';
  return now - issued > seedLifetimeSeconds ? 'expired' : 'valid';
}
