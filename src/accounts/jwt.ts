// Access tokens: HS256 JWTs signed with one key per deployment. The key comes from configuration
// or is created once in the data dir, so tokens stay valid across restarts. Each token names its
// session (`sid`, the refresh-token family it was issued in), so revoking the session ends it too.
import { randomUUID } from 'node:crypto';
import { SignJWT, jwtVerify } from 'jose';

export interface AccessClaims {
  userId: number;
  accountId: number;
  session: string;
}

export interface AccessTokens {
  sign(claims: AccessClaims): Promise<string>;
  /** Undefined for anything that is not a valid, unexpired access token of ours. */
  verify(token: string): Promise<AccessClaims | undefined>;
}

export function accessTokens(key: Uint8Array, ttlSeconds: number): AccessTokens {
  return {
    sign: ({ userId, accountId, session }) =>
      new SignJWT({ client_id: accountId, token_type: 'access', sid: session })
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
        const session = payload['sid'];
        // A token without a session (issued before sessions were named) is refused: its holder refreshes.
        if (payload['token_type'] !== 'access' || !Number.isSafeInteger(userId) || typeof accountId !== 'number' || typeof session !== 'string') {
          return undefined;
        }
        return { userId, accountId, session };
      } catch {
        return undefined;
      }
    },
  };
}
