// Password hashing with Argon2id (memory-hard), stored in the PHC string format so parameters
// can change later without invalidating existing hashes.
import { argon2, randomBytes, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

const argon2Async = promisify(argon2);

// OWASP's recommended minimum for Argon2id: 19 MiB, 2 passes, 1 lane.
const params = { memory: 19456, passes: 2, parallelism: 1, tagLength: 32 };

export async function hashPassword(password: string): Promise<string> {
  const nonce = randomBytes(16);
  const tag = await argon2Async('argon2id', { message: password, nonce, ...params });
  const b64 = (b: Buffer) => b.toString('base64').replace(/=+$/, '');
  return `$argon2id$v=19$m=${params.memory},t=${params.passes},p=${params.parallelism}$${b64(nonce)}$${b64(tag)}`;
}

export async function verifyPassword(password: string, phc: string): Promise<boolean> {
  const match = /^\$argon2id\$v=19\$m=(\d+),t=(\d+),p=(\d+)\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/.exec(phc);
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

/** A password we can print once: 24 characters of base64url, 144 bits. */
export function generatePassword(): string {
  return randomBytes(18).toString('base64url');
}
