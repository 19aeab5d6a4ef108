// The service's one ACME account at the configured directory, as an acme-client Client: its key is
// made once, sealed in the store (acme_accounts) and registered with the CA on first use; every
// node that holds the issuing lease uses the same account.
import fs from 'node:fs';
import https from 'node:https';
import { rootCertificates } from 'node:tls';
import type acme from 'acme-client';
import type { Config } from '../../../config.ts';
import type { Sealer } from '../../../crypto/sealed.ts';
import { findAcmeAccount, insertAcmeAccount, setAcmeAccountUrl } from '../../../store/acme.ts';
import type { Db } from '../../../store/database.ts';

export interface AcmeDirectory {
  /** The directory URL (RFC 8555 §7.1.1). */
  url: string;
  /** Contact address given to the CA; undefined: none (Let's Encrypt does not need one). */
  email: string | undefined;
  /**
   * PEM certificates trusted, besides Node's bundled roots, for the directory's own HTTPS (a test
   * CA such as pebble's): only this client trusts them, nothing else in the process.
   */
  ca: string | undefined;
  /** How often a pending authorization or order is polled: the first wait and the longest. */
  pollMs: { min: number; max: number };
}

/** The directory as configured (EDGEPLANE_ACME_*). */
export function acmeDirectoryOf(config: Pick<Config, 'acmeDirectory' | 'acmeEmail' | 'acmeCaFile'>): AcmeDirectory {
  return {
    url: config.acmeDirectory,
    email: config.acmeEmail,
    ca: config.acmeCaFile === undefined ? undefined : fs.readFileSync(config.acmeCaFile, 'utf8'),
    pollMs: { min: 1_000, max: 30_000 },
  };
}

const keyContext = (directory: string) => `acme-account-key:${directory}`;

/** A CA that does not answer within this fails the request (axios, under acme-client, waits forever by default). */
const requestTimeoutMs = 30_000;

interface HttpClient {
  request(url: string, method: string, opts?: Record<string, unknown>): Promise<unknown>;
}

/**
 * acme-client sends through one axios instance shared by every client in the process: options set
 * on each of this client's requests keep a timeout and any extra trust to this client alone. Its
 * HttpClient is not in its type declarations, hence the check.
 */
function ownRequestOptions(client: acme.Client, ca: string | undefined): void {
  const agent = ca === undefined ? undefined : new https.Agent({ ca: [...rootCertificates, ca], keepAlive: true });
  const http = (client as unknown as { http?: HttpClient }).http;
  if (http === undefined || typeof http.request !== 'function') throw new Error('acme-client changed: its requests cannot get options of their own');
  const request = http.request.bind(http);
  http.request = (url, method, opts = {}) => request(url, method, { ...opts, timeout: requestTimeoutMs, ...(agent === undefined ? {} : { httpsAgent: agent }) });
}

/** The account's client: made and registered the first time, read from the store afterwards. */
export async function openAcmeAccount(db: Db, sealer: Sealer, directory: AcmeDirectory): Promise<acme.Client> {
  // Loaded only where certificates are managed: acme-client (axios, node-forge, asn1 and x509
  // libraries) is about 10 MB of a thread's heap, there for good once imported.
  const { default: acmeClient } = await import('acme-client');
  let row = await findAcmeAccount(db, directory.url);
  if (row === undefined) {
    const key = await acmeClient.crypto.createPrivateEcdsaKey('P-256');
    row = await insertAcmeAccount(db, {
      directory: directory.url,
      key_sealed: sealer.seal(key, keyContext(directory.url)),
      url: null,
      created_at: new Date().toISOString(),
    });
  }
  const client = new acmeClient.Client({
    directoryUrl: directory.url,
    accountKey: sealer.open(row.key_sealed, keyContext(directory.url)),
    ...(row.url === null ? {} : { accountUrl: row.url }),
    backoffAttempts: 12,
    backoffMin: directory.pollMs.min,
    backoffMax: directory.pollMs.max,
  });
  ownRequestOptions(client, directory.ca);
  if (row.url === null) {
    // Configuring a directory is the operator's agreement to its CA's terms of service (docs/proxy.md).
    await client.createAccount({ termsOfServiceAgreed: true, ...(directory.email === undefined ? {} : { contact: [`mailto:${directory.email}`] }) });
    await setAcmeAccountUrl(db, directory.url, client.getAccountUrl());
  }
  return client;
}
