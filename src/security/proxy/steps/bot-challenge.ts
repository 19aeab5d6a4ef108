// service_botprotect 4: a client reaches the origin once it has shown it runs JavaScript. Without a
// valid clearance cookie, a GET or HEAD that accepts HTML gets the challenge page (bot-page.ts,
// 403), whose script solves a proof of work over a seed bound to this resource, the client and the
// time (bot-proof.ts) and sends the browser to the verify path; a correct solution there gets the
// cookie and a 303 back to where the browser was going (a path of the same host, nothing else).
// Other requests without the cookie (other methods, whose body the proxy could not replay after
// the check; clients asking for JSON or images) get a plain 403. Paths matching the operator's
// exempt patterns (APIs) pass unchecked.
//
// The cookie is `expiry.HMAC-SHA256(secret, resource | client key | expiry)` (signed-cookie.ts),
// the secret derived from test_cookie's (so from the service's secret key) for this use alone:
// valid on every thread and node, for one resource and one client (an IPv4 address, an IPv6 /64),
// until it expires. Nothing is kept per client but a count of the challenges it was served lately,
// in a sketch of fixed size (mitigation/repeat-counter.ts): a flood of challenge requests costs no
// memory, and one costs a HMAC; a solution, correct or not, costs a SHA-256 and a HMAC at most.
//
// A browser solves the challenge it is given; a script that does not keeps asking. A client served
// more than `repeatsHeld` challenges lately (more than about two a second, sustained, or five at
// once) gets its next ones only after the tarpit's delay, until it has asked for none for about
// six seconds: its connection then carries one request per delay instead of as many as it can
// send, and the thread's time goes to the clients that answer. A browser behind the same address
// (a NAT) still gets its page, later.
import { hkdfSync } from 'node:crypto';
import { headerValue, type Answer, type StepExchange } from '../exchange.ts';
import { sharedAnswer } from './answers.ts';
import { challengePage, verifyPath } from './bot-page.ts';
import { checkProof, issueSeed } from './bot-proof.ts';
import { clientKeyOf } from './parsed-client.ts';
import { compilePathPattern, normalizedPath } from './path-pattern.ts';
import { signedCookie, signedCookieCheck } from './signed-cookie.ts';
import type { Step } from '../exchange.ts';
import type { ResourcePolicy } from '../policy.ts';
import type { StepCompiler, StepDeps } from './step-deps.ts';

export const clearanceCookie = 'edgeplane_bot';

const botProtectionOn = 4;
/** Challenges served to one client lately (halved each second) past which the next are held. */
const repeatsHeld = 4;
/** A path and query to go back to: longer ones (no browser sends them to a page) go to `/`. */
const maxTargetLength = 2048;
/** The verify request's target: the seed, the nonce and a longest `to`, escaped. */
const maxVerifyLength = 4 * maxTargetLength;

const noStore = { 'cache-control': 'no-store' };
const needsBrowser = sharedAnswer({
  status: 403,
  reason: 'bot_challenge',
  headers: noStore,
  body: 'Forbidden: this site lets browsers in after a JavaScript check; open it in a browser\n',
});
const needsBrowserHeld = sharedAnswer({ ...needsBrowser, hold: true });
const failed = sharedAnswer({ status: 403, reason: 'bot_failed', headers: noStore, body: 'Forbidden: the browser check failed\n' });

/** The clearance secret: derived from test_cookie's, so a cookie of one is never a cookie of the other. */
export function botSecretOf(cookieSecret: Buffer): Buffer {
  return Buffer.from(hkdfSync('sha256', cookieSecret, new Uint8Array(0), 'edgeplane proxy bot challenge', 32));
}

// A client that may render the page: a navigation (text/html), or one that named no type (curl's */*, none at all).
function acceptsHtml(accept: string | undefined): boolean {
  return accept === undefined || accept.includes('text/html') || accept.includes('*/*') || accept.includes('text/*');
}

/**
 * Where the browser goes after the check: a path of the host it asked, as it sent it. Anything else
 * goes to `/`: another host (`//evil.example`, `/\evil.example`, which browsers read as
 * `//evil.example`, `https://…`), control characters or spaces (a header's end), non-ASCII.
 */
export function sameHostTarget(to: string | null): string {
  if (to === null || to.length > maxTargetLength || to.charCodeAt(0) !== 0x2f) return '/';
  for (let i = 1; i < to.length; i++) {
    const c = to.charCodeAt(i);
    if (c < 0x21 || c > 0x7e || c === 0x5c || (i === 1 && c === 0x2f)) return '/';
  }
  return to;
}

export const isBotProtected = (policy: ResourcePolicy) => policy.settings.service_botprotect === botProtectionOn;

/**
 * The challenge with the switch on. With it off, only the verify path: automatic mitigation may
 * challenge any resource, and a browser whose page was served under attack may solve it after the
 * attack ended; it gets its cookie and its way back, not the origin's answer for the proxy's path.
 */
export const botChallengeStep: StepCompiler = (policy, deps) => (isBotProtected(policy) ? botChallenge(policy, deps) : botChallengeParts(policy, deps).verifyOnly);

/** The challenge whatever the resource's switch says: automatic mitigation puts it before new clients while the resource is under attack. */
export const botChallenge = (policy: ResourcePolicy, deps: StepDeps): Step => botChallengeParts(policy, deps).challenge;

function botChallengeParts(policy: ResourcePolicy, deps: StepDeps): { challenge: Step; verifyOnly: Step } {
  const secret = botSecretOf(deps.cookieSecret);
  const lifetime = deps.settings.botClearanceSeconds;
  const exempt = deps.settings.botExemptPaths.map(compilePathPattern);
  const hasClearance = signedCookieCheck(secret, clearanceCookie);
  const resource = String(policy.id);

  // The subject of the last client: a keep-alive connection's requests reuse one string.
  let lastClient: string | undefined;
  let lastSubject = '';
  const subjectOf = (client: string): string => {
    if (client !== lastClient) {
      lastClient = client;
      lastSubject = `${resource}|${clientKeyOf(client)}`;
    }
    return lastSubject;
  };

  const verify = (exchange: StepExchange, now: number): Answer => {
    const url = exchange.req.url ?? '';
    if (exchange.method !== 'GET' || url.length > maxVerifyLength) return failed;
    const query = url.indexOf('?');
    const parameters = new URLSearchParams(query < 0 ? '' : url.slice(query + 1));
    const subject = subjectOf(exchange.client);
    const proof = checkProof(secret, subject, parameters.get('s') ?? '', parameters.get('n') ?? '', now);
    if (proof === 'invalid') return failed;
    const location = sameHostTarget(parameters.get('to'));
    // A seed solved too late (a page restored long after it was loaded): back for a fresh one.
    if (proof === 'expired') return { status: 303, reason: 'bot_challenge', headers: { location, ...noStore } };
    const cookie = signedCookie(secret, clearanceCookie, subject, now, lifetime, exchange.secure);
    return { status: 303, reason: 'bot_verified', headers: { location, 'set-cookie': cookie, ...noStore } };
  };

  const challenge: Step = (exchange) => {
    const now = Math.floor(Date.now() / 1000);
    if (exchange.path === verifyPath) return verify(exchange, now);
    const path = normalizedPath(exchange.path);
    for (const matches of exempt) if (matches(path)) return undefined;
    const subject = subjectOf(exchange.client);
    if (hasClearance(headerValue(exchange.req, 'cookie'), subject, now)) return undefined;
    const repeated = deps.challengesServed.past(subject, repeatsHeld, now);
    if ((exchange.method !== 'GET' && exchange.method !== 'HEAD') || !acceptsHtml(headerValue(exchange.req, 'accept'))) return repeated ? needsBrowserHeld : needsBrowser;
    const page = challengePage(issueSeed(secret, subject, now));
    return repeated ? { ...page, hold: true } : page;
  };
  const verifyOnly: Step = (exchange) => (exchange.path === verifyPath ? verify(exchange, Math.floor(Date.now() / 1000)) : undefined);
  return { challenge, verifyOnly };
}
