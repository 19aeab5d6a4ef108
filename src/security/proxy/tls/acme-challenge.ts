// The proxy's answer to an ACME HTTP-01 request (RFC 8555 §8.3) for a token of an order it placed
// itself: before any other check of the resource, on HTTP and HTTPS alike (a CA may follow a
// redirect to HTTPS). Other tokens go on like any request: a customer's own ACME client on the
// origin still gets its challenges.
import type { Answer } from '../exchange.ts';
import type { ResourcePolicy } from '../policy.ts';

const prefix = '/.well-known/acme-challenge/';

/** The key authorization for a pending token of this resource, or undefined. `path`: without the query. */
export function acmeChallengeAnswer(policy: ResourcePolicy, path: string): Answer | undefined {
  const pending = policy.acmeChallenges;
  if (pending === undefined || !path.startsWith(prefix)) return undefined;
  const token = path.slice(prefix.length);
  const challenge = pending.find((c) => c.token === token);
  if (challenge === undefined) return undefined;
  return { status: 200, reason: 'acme_challenge', headers: { 'content-type': 'application/octet-stream' }, body: challenge.keyAuthorization };
}
