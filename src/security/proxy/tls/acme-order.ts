// One ACME order (RFC 8555 §7.4) for a resource's names, validated by HTTP-01: the answers are
// posted where every proxy thread and node serves them, the CA is told to look, and once every
// name is authorized a fresh key's CSR is finalized and the chain downloaded. The key never leaves
// this process except sealed in the store.
import { generateKeyPairSync } from 'node:crypto';
import type acme from 'acme-client';
import { ApiError } from '../../../errors.ts';
import { validateCertificate } from '../../certificate.ts';

export interface PostedChallenge {
  token: string;
  host: string;
  keyAuthorization: string;
}

/** Where HTTP-01 answers are put up for the CA to fetch (store + change feed: acme-manager.ts). */
export interface ChallengeBoard {
  /** Resolves once every proxy thread serves them (as far as this node can know). */
  post(resourceId: number, challenges: PostedChallenge[]): Promise<void>;
  clear(resourceId: number, tokens: string[]): Promise<void>;
}

export type OrderOutcome =
  | { ok: true; chain: string; key: string; expiresAt: number }
  /** `authorized`: the names the CA did accept, which a smaller order may still get a certificate for. */
  | { ok: false; error: string; authorized: string[] };

/** Longest error text kept: CA problem documents can be long and are logged and stored. */
const maxErrorLength = 500;

function message(e: unknown): string {
  if (e instanceof ApiError) return e.message;
  return e instanceof Error ? e.message : String(e);
}

export async function orderCertificate(client: acme.Client, resourceId: number, hosts: string[], board: ChallengeBoard): Promise<OrderOutcome> {
  const order = await client.createOrder({ identifiers: hosts.map((value) => ({ type: 'dns', value })) });
  const authorizations = await client.getAuthorizations(order);
  const authorized = new Set(authorizations.filter((a) => a.status === 'valid').map((a) => a.identifier.value));
  const failures: string[] = [];
  const pending: { host: string; challenge: acme.Authorization['challenges'][number] }[] = [];
  for (const authz of authorizations) {
    if (authz.status === 'valid') continue;
    const challenge = authz.challenges.find((c) => c.type === 'http-01');
    if (authz.status !== 'pending' || challenge === undefined) {
      failures.push(`${authz.identifier.value}: ${challenge === undefined ? 'the CA offers no http-01 challenge' : `authorization is ${authz.status}`}`);
      continue;
    }
    pending.push({ host: authz.identifier.value, challenge });
  }

  if (failures.length === 0 && pending.length > 0) {
    const posted = await Promise.all(pending.map(async (p) => ({ token: p.challenge.token, host: p.host, keyAuthorization: await client.getChallengeKeyAuthorization(p.challenge) })));
    await board.post(resourceId, posted);
    try {
      for (const p of pending) await client.completeChallenge(p.challenge);
      const results = await Promise.allSettled(pending.map((p) => client.waitForValidStatus(p.challenge)));
      for (const [i, result] of results.entries()) {
        const host = pending[i]?.host ?? '';
        if (result.status === 'fulfilled') authorized.add(host);
        else failures.push(`${host}: ${message(result.reason)}`);
      }
    } finally {
      await board.clear(resourceId, posted.map((p) => p.token));
    }
  }
  if (failures.length > 0) return { ok: false, error: failures.join('; ').slice(0, maxErrorLength), authorized: hosts.filter((h) => authorized.has(h)) };

  const { privateKey: key } = generateKeyPairSync('ec', {
    namedCurve: 'P-256',
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  // Certificates show the first name as subject too, where it fits a common name (64 characters).
  const first = hosts[0] ?? '';
  // Loaded here, not at start: only a service that manages certificates pays for acme-client (acme-account.ts).
  const { crypto } = (await import('acme-client')).default;
  const [, csr] = await crypto.createCsr({ altNames: hosts, ...(first.length <= 64 ? { commonName: first } : {}) }, key);
  const finalized = await client.finalizeOrder(order, csr);
  const chain = await client.getCertificate(finalized);
  // What the CA sent is checked like a customer's certificate before anything serves it.
  try {
    const valid = validateCertificate(chain, key);
    const missing = hosts.filter((h) => !valid.covers(h));
    if (missing.length > 0) return { ok: false, error: `the CA's certificate does not cover ${missing.join(', ')}`, authorized: [] };
    return { ok: true, chain: valid.chain, key, expiresAt: valid.expiresAt };
  } catch (e) {
    return { ok: false, error: `the CA's certificate is unusable: ${message(e)}`.slice(0, maxErrorLength), authorized: [] };
  }
}
