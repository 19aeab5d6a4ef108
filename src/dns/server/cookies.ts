// DNS COOKIEs (RFC 7873) with the interoperable server cookie of RFC 9018: a client sends 8 random
// octets; we answer with a server cookie bound to them, to the client's address and to a secret, so
// that a later query carrying it proves the client saw our reply from that address (it is not
// spoofed). Every DNS thread and node holding the same secret makes and accepts the same cookies.
//
// Server cookie: version 1, three reserved zero octets, a 32-bit timestamp (seconds) and
// SipHash-2-4(client cookie | version | reserved | timestamp | client address) under the secret.
import { hkdfSync } from 'node:crypto';
import ipaddr from 'ipaddr.js';
import siphash24 from 'siphash24';

/** EDNS option code of COOKIE (RFC 7873 §4). */
export const cookieOption = 10;
const serverCookieLength = 16;
const version = 1;
/** RFC 9018 §4.3: a cookie is good for an hour, and may come from up to 5 minutes in the future. */
const maxAgeSeconds = 3600;
const maxAheadSeconds = 300;
/** Past half an hour a fresh cookie is handed back (RFC 9018 §4.3), before the client's expires. */
const renewAfterSeconds = 1800;
const cookieSecretLength = 16;

/** The secrets: the first makes cookies, every one is accepted (the others are the ones rotated out). */
export type CookieSecrets = readonly Uint8Array[];

/** `EDGEPLANE_DNS_COOKIE_SECRET`: comma-separated secrets of 32 hex digits, newest first. */
export function parseCookieSecrets(value: string): Buffer[] {
  const secrets = value.split(',').map((s) => s.trim()).filter((s) => s !== '');
  if (secrets.length === 0 || secrets.length > 4) throw new Error('expected 1 to 4 comma-separated secrets');
  return secrets.map((s) => {
    if (!/^[0-9a-f]{32}$/i.test(s)) throw new Error('each secret must be 32 hex digits (128 bits)');
    return Buffer.from(s, 'hex');
  });
}

/** Without a configured secret: one derived from the service's secret key, so nodes sharing it agree. */
export function derivedCookieSecret(secretKey: Uint8Array): Buffer {
  return Buffer.from(hkdfSync('sha256', secretKey, 'edgeplane', 'dns cookie secret', cookieSecretLength));
}

/** The client's address as octets (IPv4-mapped IPv6 as IPv4: a dual-stack socket reports those). */
function addressOctets(source: string): Uint8Array | undefined {
  if (!ipaddr.isValid(source)) return undefined;
  return Uint8Array.from(ipaddr.process(source).toByteArray());
}

function hash(secret: Uint8Array, client: Buffer, header: Buffer, address: Uint8Array): Buffer {
  const input = Buffer.concat([client, header, address]);
  return Buffer.from(siphash24(input, secret));
}

function serverCookie(secret: Uint8Array, client: Buffer, address: Uint8Array, now: number): Buffer {
  const header = Buffer.alloc(8);
  header[0] = version;
  header.writeUInt32BE(now >>> 0, 4);
  return Buffer.concat([header, hash(secret, client, header, address)]);
}

/** A server cookie for `client` at `now` (seconds), made with `secret`. */
export function makeServerCookie(secret: Uint8Array, client: Buffer, source: string, now: number): Buffer | undefined {
  const address = addressOctets(source);
  return address === undefined ? undefined : serverCookie(secret, client, address, now);
}

/** Serial number arithmetic on 32-bit timestamps (RFC 1982), as RFC 9018 §4.3 asks: `a - b` in seconds. */
function secondsBetween(a: number, b: number): number {
  return ((a - b) | 0);
}

export type CookieVerdict =
  /** Only a client cookie: answer normally with a new server cookie. */
  | 'new'
  /** A server cookie we made for this client and address, still good. */
  | 'valid'
  /** A server cookie we did not make, for another address, or expired. */
  | 'invalid';

export interface CookieAnswer {
  verdict: CookieVerdict;
  /** The option to send back: the client cookie and a server cookie (the same or a fresh one). */
  option: Buffer;
}

/**
 * What to make of a query's cookies. `server` is undefined for a client cookie alone; its length was
 * checked by the parser (8 to 32 octets). Undefined when the source is not an address (never on a
 * real socket).
 */
export function checkCookies(secrets: CookieSecrets, client: Buffer, server: Buffer | undefined, source: string, now: number): CookieAnswer | undefined {
  const current = secrets[0];
  const address = addressOctets(source);
  if (current === undefined || address === undefined) return undefined;
  let verdict: CookieVerdict = server === undefined ? 'new' : 'invalid';
  let reply: Buffer | undefined;
  if (server !== undefined && server.length === serverCookieLength && server[0] === version) {
    const stamp = server.readUInt32BE(4);
    const age = secondsBetween(now >>> 0, stamp);
    if (age <= maxAgeSeconds && age >= -maxAheadSeconds) {
      const given = server.subarray(8);
      const header = server.subarray(0, 8);
      const made = secrets.findIndex((secret) => hash(secret, client, header, address).equals(given));
      if (made >= 0) verdict = 'valid';
      // Still young and made with the current secret: handed back as it is.
      if (made === 0 && age < renewAfterSeconds) reply = server;
    }
  }
  reply ??= serverCookie(current, client, address, now);
  const option = Buffer.alloc(4 + client.length + reply.length);
  option.writeUInt16BE(cookieOption, 0);
  option.writeUInt16BE(client.length + reply.length, 2);
  client.copy(option, 4);
  reply.copy(option, 4 + client.length);
  return { verdict, option };
}
