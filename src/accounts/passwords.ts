// Password hashing with Argon2id (memory-hard), stored in the PHC string format so parameters
// can change later without invalidating existing hashes. These functions do the work unbounded:
// everything else hashes through password-hasher.ts, which bounds how much runs at once.
import { argon2, randomBytes, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

const argon2Async = promisify(argon2);

// OWASP's recommended minimum for Argon2id: 19 MiB, 2 passes, 1 lane.
const params = { memory: 19456, passes: 2, parallelism: 1, tagLength: 32 };

const phc = (nonce: Buffer, tag: Buffer) => {
  const b64 = (b: Buffer) => b.toString('base64').replace(/=+$/, '');
  return `$argon2id$v=19$m=${params.memory},t=${params.passes},p=${params.parallelism}$${b64(nonce)}$${b64(tag)}`;
};

/** The shortest password taken, wherever one is set (the API, the configuration, the CLI). */
export const minPasswordLength = 8;

export async function hashPassword(password: string): Promise<string> {
  const nonce = randomBytes(16);
  return phc(nonce, await argon2Async('argon2id', { message: password, nonce, ...params }));
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const match = /^\$argon2id\$v=19\$m=(\d+),t=(\d+),p=(\d+)\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/.exec(stored);
  if (!match) return false;
  const [, memory, passes, parallelism, nonce, tag] = match;
  const expected = Buffer.from(tag ?? '', 'base64');
  const actual = await argon2Async('argon2id', {
    message: password,
    nonce: Buffer.from(nonce ?? '', 'base64'),
    memory: Number(memory),
    passes: Number(passes),
    parallelism: Number(parallelism),
    tagLength: expected.length,
  });
  return timingSafeEqual(actual, expected);
}

/**
 * A stored hash that no password matches (its tag is random), with today's parameters: verifying
 * against it when a user does not exist costs what a real check costs, so login timing does not
 * reveal which e-mail addresses have accounts — without spending a hash to make it.
 */
export function decoyHash(): string {
  return phc(randomBytes(16), randomBytes(params.tagLength));
}

/** A password we can print once: 24 characters of base64url, 144 bits. */
export function generatePassword(): string {
  return randomBytes(18).toString('base64url');
}
