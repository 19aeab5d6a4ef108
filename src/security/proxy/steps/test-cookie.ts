// test_cookie on a rule (nginx's testcookie module): before a client's requests to the rule's
// method and path reach the origin, it must show it keeps cookies. Without a valid cookie it gets
// 307 back to the same path and query, with Set-Cookie and an attempt counter in the query
// (`edgeplane_tc_try=N`); a client that comes back with the cookie is sent once more (307) to the
// address without the counter, then passes, and is still rate-limited. A client that keeps coming
// back without the cookie is refused (403) at its 6th try, after 5 redirects. The counter lives in
// the address, as testcookie's does: no state is kept per client, so a flood of cookie-less clients
// costs no memory, and clients sharing one address (NAT) do not use up each other's tries. A client
// that drops the counter is only ever redirected, never let through.
//
// Every method gets the same 307, which keeps the method and body: a browser whose cookie expired
// while a form was open sends the form again with the new cookie. The proxy reads no body before it.
//
// The cookie is `expiry.HMAC-SHA256(cookieSecret, client key | expiry)` (signed-cookie.ts): valid
// for one hour, for one client (an IPv4 address, an IPv6 /64) on every proxy node, HttpOnly,
// SameSite=Lax, Secure over HTTPS.
import { headerValue, type Answer } from '../exchange.ts';
import { forbidden } from './answers.ts';
import { clientKeyOf } from './parsed-client.ts';
import { normalizedPath } from './path-pattern.ts';
import { compileRuleMatch } from './rule-match.ts';
import { signedCookie, signedCookieCheck } from './signed-cookie.ts';
import type { StepCompiler } from './step-deps.ts';

export const cookieName = 'edgeplane_tc';
export const attemptParameter = 'edgeplane_tc_try';
export const maxAttempts = 5;
export const cookieLifetimeSeconds = 3600;

const refused = forbidden('test_cookie');
const attemptAt = `${attemptParameter}=`;

/** The tries so far, from the query; 0 without the parameter. */
function attemptsIn(url: string | undefined): number {
  if (url === undefined) return 0;
  const query = url.indexOf('?');
  if (query < 0 || !url.includes(attemptAt, query)) return 0;
  for (const parameter of url.slice(query + 1).split('&')) {
    if (parameter.startsWith(attemptAt)) {
      const value = parameter.slice(attemptAt.length);
      return /^\d{1,3}$/.test(value) ? Number(value) : 0;
    }
  }
  return 0;
}

/** path?query without the attempt counter, with `attempt` as the counter when above 0. */
function target(path: string, url: string | undefined, attempt: number): string {
  const query = url?.indexOf('?') ?? -1;
  const kept = query < 0 || url === undefined ? [] : url.slice(query + 1).split('&').filter((p) => p !== '' && !p.startsWith(attemptAt) && p !== attemptParameter);
  if (attempt > 0) kept.push(`${attemptAt}${attempt}`);
  return kept.length === 0 ? path : `${path}?${kept.join('&')}`;
}

export const testCookieStep: StepCompiler = (policy, deps) => {
  const matchers = policy.rules.filter((rule) => rule.testCookie).map(compileRuleMatch);
  if (matchers.length === 0) return undefined;
  const secret = deps.cookieSecret;

  const hasCookie = signedCookieCheck(secret, cookieName);

  return (exchange) => {
    const path = normalizedPath(exchange.path);
    let applies = false;
    for (const matches of matchers) if ((applies = matches(exchange.method, path))) break;
    if (!applies) return undefined;
    const client = clientKeyOf(exchange.client);
    const now = Math.floor(Date.now() / 1000);
    const { url } = exchange.req;
    const attempts = attemptsIn(url);
    if (hasCookie(headerValue(exchange.req, 'cookie'), client, now)) {
      if (attempts === 0) return undefined;
      return { status: 307, reason: 'test_cookie', headers: { location: target(exchange.path, url, 0), 'cache-control': 'no-store' } } satisfies Answer;
    }
    if (attempts >= maxAttempts) return refused;
    const cookie = signedCookie(secret, cookieName, client, now, cookieLifetimeSeconds, exchange.secure);
    return {
      status: 307,
      reason: 'test_cookie',
      headers: { location: target(exchange.path, url, attempts + 1), 'set-cookie': cookie, 'cache-control': 'no-store' },
    } satisfies Answer;
  };
};
