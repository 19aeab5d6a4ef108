// Cookies the proxy signs instead of remembering (test_cookie's, the bot challenge's clearance): the
// value is `expiry.HMAC-SHA256(secret, subject | expiry)`, where the subject names whom the cookie is
// for (a client key; a resource and a client key). Nothing is kept per client: any thread or node
// holding the secret checks a cookie made by any other, and a flood of clients without one costs
// no memory. Checking one costs a HMAC at most (a keep-alive connection's repeated cookie: nothing).
import { timingSafeEqual } from 'node:crypto';
import { hmacSha256 } from './keyed-mac.ts';

export function cookieMac(secret: Buffer, subject: string, expiry: number): string {
  return hmacSha256(secret, `${subject}|${expiry}`).toString('base64url');
}

/** The Set-Cookie value of a cookie for `subject` valid `lifetime` seconds from `now`: HttpOnly,
 *  SameSite=Lax, for every path of the host, Secure when it is set over HTTPS. */
export function signedCookie(secret: Buffer, name: string, subject: string, now: number, lifetime: number, secure: boolean): string {
  const expiry = now + lifetime;
  return `${name}=${expiry}.${cookieMac(secret, subject, expiry)}; Path=/; Max-Age=${lifetime}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
}

/** Cookies of one name looked at in a header: a browser may hold a few (set for other paths or a
 *  parent domain); a header of thousands must not cost a HMAC each. */
const maxTries = 4;

/** Whether a Cookie header holds a cookie `name` valid for a subject at a time (UNIX seconds). */
export type CookieCheck = (header: string | undefined, subject: string, now: number) => boolean;

export function signedCookieCheck(secret: Buffer, name: string): CookieCheck {
  const named = `${name}=`;
  // A keep-alive connection sends one cookie many times: the last one found valid is remembered.
  let lastValue = '';
  let lastSubject = '';
  let lastExpiry = 0;
  const valid = (value: string, subject: string, now: number): boolean => {
    if (value === lastValue && subject === lastSubject) return lastExpiry > now;
    const dot = value.indexOf('.');
    const expiry = dot > 0 && dot <= 12 ? Number(value.slice(0, dot)) : 0;
    if (!Number.isInteger(expiry) || expiry <= now) return false;
    const mac = Buffer.from(value.slice(dot + 1));
    const expected = Buffer.from(cookieMac(secret, subject, expiry));
    if (mac.length !== expected.length || !timingSafeEqual(mac, expected)) return false;
    lastValue = value;
    lastSubject = subject;
    lastExpiry = expiry;
    return true;
  };
  return (header, subject, now) => {
    if (header === undefined) return false;
    let tries = 0;
    for (let at = header.indexOf(named); at >= 0 && tries < maxTries; at = header.indexOf(named, at + 1)) {
      const before = at === 0 ? 0x3b : header.charCodeAt(at - 1);
      if (before !== 0x3b && before !== 0x20) continue;
      tries++;
      const start = at + named.length;
      const end = header.indexOf(';', start);
      if (valid(header.slice(start, end < 0 ? header.length : end).trim(), subject, now)) return true;
    }
    return false;
  };
}
