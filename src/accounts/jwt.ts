// Access tokens: HS256 JWTs signed with one key per deployment. The key comes from configuration
// or is created once in the data dir, so tokens stay valid across restarts.
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes, randomUUID } from 'node:crypto';
import { SignJWT, jwtVerify } from 'jose';

export interface AccessClaims {
  userId: number;
  accountId: number;
}

export interface AccessTokens {
  sign(claims: AccessClaims): Promise<string>;
  /** Undefined for anything that is not a valid, unexpired access token of ours. */
  verify(token: string): Promise<AccessClaims | undefined>;
}

const keyFile = 'jwt-signing.key';

export function loadSigningKey(dataDir: string, configured: string | undefined): Uint8Array {
  if (configured !== undefined) return new TextEncoder().encode(configured);
  const file = path.join(dataDir, keyFile);
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  try {
    // 'wx' fails if another process created the key first; then we read theirs.
    fs.writeFileSync(file, randomBytes(32).toString('base64'), { flag: 'wx', mode: 0o600 });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
  return Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'base64');
}

export function accessTokens(key: Uint8Array, ttlSeconds: number): AccessTokens {
  return {
    sign: ({ userId, accountId }) =>
      new SignJWT({ client_id: accountId, token_type: 'access' })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setSubject(String(userId))
        .setJti(randomUUID())
        .setIssuedAt()
        .setExpirationTime(`${ttlSeconds}s`)
        .sign(key),
    verify: async (token) => {
      try {
        const { payload } = await jwtVerify(token, key, { algorithms: ['HS256'] });
        const userId = Number(payload.sub);
        const accountId = payload['client_id'];
        if (payload['token_type'] !== 'access' || !Number.isSafeInteger(userId) || typeof accountId !== 'number') {
          return undefined;
        }
        return { userId, accountId };
      } catch {
        return undefined;
      }
    },
  };
}
