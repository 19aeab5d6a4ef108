// Where a zone webhook may be sent. A webhook URL is chosen by a tenant but requested by the
// server, so without this policy it would let any tenant reach loopback and internal services (SSRF).
import type { LookupAddress } from 'node:dns';
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { nonPublic } from '../net/public-address.ts';

export class WebhookTargetError extends Error {
  override name = 'WebhookTargetError';
}

/** An error message for a URL that can never be a webhook, or undefined; needs no network. */
export function validateWebhookUrl(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'webhook must be an absolute http:// or https:// URL';
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    return `webhook scheme ${parsed.protocol.slice(0, -1)} is not allowed: use http or https`;
  }
  if (parsed.username !== '' || parsed.password !== '') {
    return 'webhook URL must not carry credentials (user:password@)';
  }
  if (parsed.hostname === '') return 'webhook URL has no host';
  return undefined;
}

/** How long a zone write waits for the webhook host's addresses before leaving them to delivery. */
const writeLookupTimeoutMs = 2000;

/**
 * What is wrong with a zone's webhook URL when the zone is written, or undefined: its form, and its
 * addresses against the destination policy. A host that does not resolve (yet), or not in time, is
 * accepted: delivery resolves and checks it again before every attempt.
 */
export async function webhookWriteProblem(url: string, allowPrivate: boolean): Promise<string | undefined> {
  // Every address is allowed: only the form is left to check, without asking DNS.
  if (allowPrivate) return validateWebhookUrl(url);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, writeLookupTimeoutMs)));
  try {
    await Promise.race([checkWebhookTarget(url, allowPrivate), timeout]);
    return undefined;
  } catch (error) {
    return error instanceof WebhookTargetError ? error.message : undefined;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Resolves the webhook's host and returns its addresses once every one of them is allowed.
 * Delivery connects to exactly these addresses, so a DNS answer that changes between the check
 * and the connection (DNS rebinding) cannot redirect it. Throws WebhookTargetError when refused;
 * a failed lookup throws the resolver's error, which may well be temporary.
 */
export async function checkWebhookTarget(url: string, allowPrivate: boolean): Promise<LookupAddress[]> {
  const invalid = validateWebhookUrl(url);
  if (invalid !== undefined) throw new WebhookTargetError(invalid);
  // The URL parser has already normalised literals (0x7f.1 → 127.0.0.1); IPv6 keeps its brackets.
  const host = new URL(url).hostname.replace(/^\[(.*)\]$/, '$1');
  const family = isIP(host);
  const addresses = family !== 0 ? [{ address: host, family }] : await lookup(host, { all: true });
  if (addresses.length === 0) throw new Error(`webhook host ${host} has no address`);
  if (!allowPrivate) {
    for (const { address } of addresses) {
      const refusal = nonPublic(address);
      if (refusal !== undefined) {
        const resolved = address === host ? '' : ` (${host} resolves to ${address})`;
        throw new WebhookTargetError(`webhook target ${host}${resolved} is a ${refusal} address; only public addresses are allowed`);
      }
    }
  }
  return addresses;
}
