// Custom TLS certificates of protected resources: the PEM chain and its private key, checked before
// they are stored. Every refusal is a 400 naming `service_ssl_crt` or `service_ssl_key`; no message
// ever quotes the input, so no part of a private key can leak through an error.
import { createPrivateKey, createPublicKey, X509Certificate } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { domainToASCII } from 'node:url';
import { ApiError, invalid } from '../errors.ts';
import type { FieldErrors } from '../errors.ts';

export interface ValidCertificate {
  /** The PEM chain as given, normalised (leaf first, each block re-encoded, trailing newline). */
  chain: string;
  /** notAfter of the leaf, UNIX seconds. */
  expiresAt: number;
  /** True when the leaf covers the host name (subjectAltName DNS entries, RFC 6125: exact, or a wildcard for exactly one leftmost label; the subject CN only when there is no DNS SAN). Case-insensitive; accepts IDN A-labels. */
  covers(hostname: string): boolean;
}

const CRT = 'service_ssl_crt';
const KEY = 'service_ssl_key';
const MAX_CHAIN_BYTES = 64 * 1024;
const MAX_CHAIN_CERTIFICATES = 10;
// An RSA-16384 key is about 13 KB of PEM; anything larger is not a key.
const MAX_KEY_BYTES = 16 * 1024;
const MIN_RSA_BITS = 2048;
const EC_CURVES: Record<string, string> = { prime256v1: 'P-256', secp384r1: 'P-384' };

/** Validates a custom certificate and its key for a resource; `now` for tests. Throws ApiError 400 with fields. */
export function validateCertificate(chainPem: string, keyPem: string, now: Date = new Date()): ValidCertificate {
  // The two fields are checked independently so that both problems are reported at once.
  const chain = attempt(() => readChain(chainPem, now));
  const key = attempt(() => readKey(keyPem));
  if (chain instanceof ApiError || key instanceof ApiError) {
    const failures = [chain, key].filter((r) => r instanceof ApiError);
    const fields: FieldErrors = {};
    for (const f of failures) Object.assign(fields, f.fields);
    throw invalid(failures.map((f) => f.message).join('; '), fields);
  }
  const [leaf, ...issuers] = chain;
  const certificates = [leaf, ...issuers];
  if (!sameKey(key, leaf.publicKey)) fail(KEY, 'the private key does not match the certificate');

  return {
    chain: certificates.map((c) => c.toString()).join(''),
    expiresAt: Math.floor(leaf.validToDate.getTime() / 1000),
    covers: (hostname) => covers(leaf, hostname),
  };
}

/** True when the leaf of a chain that validateCertificate accepted earlier covers the host name. */
export function storedChainCovers(chainPem: string, hostname: string): boolean {
  // X509Certificate reads the first PEM block: the leaf.
  return covers(new X509Certificate(chainPem), hostname);
}

function attempt<T>(f: () => T): T | ApiError {
  try {
    return f();
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
}

function fail(field: string, message: string): never {
  throw invalid(message, { [field]: message });
}

// ---- the certificate chain ----------------------------------------------------------------------

function readChain(text: string, now: Date): [X509Certificate, ...X509Certificate[]] {
  if (Buffer.byteLength(text, 'utf8') > MAX_CHAIN_BYTES) fail(CRT, 'the certificate chain is larger than 64 KiB');
  const blocks = readPem(text, CRT, 'certificate');
  if (blocks.length > MAX_CHAIN_CERTIFICATES) fail(CRT, `too many certificates: at most ${MAX_CHAIN_CERTIFICATES} in a chain`);

  const certificates = blocks.map((block, i) => {
    const n = i + 1;
    if (block.label.includes('PRIVATE KEY')) fail(CRT, `block ${n} is a private key; send it as ${KEY}, not in the certificate chain`);
    if (block.label !== 'CERTIFICATE') fail(CRT, `block ${n} is a "${block.label}"; only CERTIFICATE blocks are allowed`);
    if (block.headers) fail(CRT, `certificate ${n} has PEM headers; a certificate block holds base64 only`);
    let certificate: X509Certificate;
    try {
      certificate = new X509Certificate(block.der);
    } catch {
      fail(CRT, `certificate ${n} is not a valid X.509 certificate`);
    }
    if (!certificate.raw.equals(block.der)) fail(CRT, `certificate ${n} has trailing data after the certificate`);
    return certificate;
  });

  const [leaf, ...issuers] = certificates;
  if (leaf === undefined) fail(CRT, 'no certificate: expected one or more -----BEGIN CERTIFICATE----- blocks');
  checkOrder(certificates);

  if (leaf.validToDate.getTime() < now.getTime()) fail(CRT, `the certificate expired on ${isoDate(leaf.validToDate)}`);
  if (leaf.validFromDate.getTime() > now.getTime()) fail(CRT, `the certificate is not valid yet: it becomes valid on ${isoDate(leaf.validFromDate)}`);
  return [leaf, ...issuers];
}

/** Leaf first, then each certificate's issuer: tells an out-of-order chain from one with a stranger in it. */
function checkOrder(certificates: X509Certificate[]): void {
  for (const [index, child] of certificates.entries()) {
    const next = certificates[index + 1];
    if (next === undefined) return;
    const i = index + 1; // 1-based numbers in messages: child is certificate i, next is i + 1
    if (child.checkIssued(next)) {
      if (!child.verify(next.publicKey)) fail(CRT, `the signature of certificate ${i} does not verify with the key of certificate ${i + 1}, its issuer`);
      continue;
    }
    const issuer = certificates.findIndex((c, j) => j !== index && child.checkIssued(c));
    if (issuer !== -1 || next.checkIssued(child)) {
      const hint = issuer !== -1 ? `; its issuer is certificate ${issuer + 1}` : `; certificate ${i + 1} is issued by certificate ${i}`;
      fail(CRT, `the certificate chain is out of order: certificate ${i + 1} is not the issuer of certificate ${i}${hint}. Send the leaf first, then each certificate's issuer`);
    }
    fail(CRT, `certificate ${i + 1} (${oneLine(next.subject)}) is not the issuer of certificate ${i} (issued by ${oneLine(child.issuer)}); the chain must be the leaf, then each certificate's issuer`);
  }
}

function oneLine(name: string): string {
  return name.split('\n').join(', ');
}

function isoDate(date: Date): string {
  return date.toISOString().replace('.000Z', 'Z');
}

// ---- the private key ----------------------------------------------------------------------------

const KEY_FORMATS: Record<string, 'pkcs8' | 'pkcs1' | 'sec1'> = {
  'PRIVATE KEY': 'pkcs8',
  'RSA PRIVATE KEY': 'pkcs1',
  'EC PRIVATE KEY': 'sec1',
};
const ENCRYPTED = 'the private key is encrypted; send it without a passphrase';

function readKey(text: string): KeyObject {
  if (Buffer.byteLength(text, 'utf8') > MAX_KEY_BYTES) fail(KEY, 'the private key is larger than 16 KiB');
  // `openssl ecparam -genkey` writes an EC PARAMETERS block before the key; it says nothing the key does not.
  const blocks = readPem(text, KEY, 'private key').filter((b) => b.label !== 'EC PARAMETERS');
  if (blocks.some((b) => b.label === 'ENCRYPTED PRIVATE KEY' || b.encrypted)) fail(KEY, ENCRYPTED);
  const [block, ...others] = blocks;
  if (block === undefined) fail(KEY, 'no private key: expected a PEM block of PRIVATE KEY, RSA PRIVATE KEY or EC PRIVATE KEY');
  if (others.length > 0) fail(KEY, `expected a single private key, found ${blocks.length} PEM blocks`);
  if (block.label === 'CERTIFICATE') fail(KEY, `this is a certificate; send it as ${CRT} and the private key here`);
  const type = KEY_FORMATS[block.label];
  if (type === undefined) fail(KEY, `a "${block.label}" block is not a private key; expected PRIVATE KEY, RSA PRIVATE KEY or EC PRIVATE KEY`);

  let key: KeyObject;
  try {
    key = createPrivateKey({ key: block.der, format: 'der', type });
  } catch (e) {
    // Node's own message is never passed on: it is not ours to promise it quotes nothing of the key.
    if ((e as { code?: unknown }).code === 'ERR_MISSING_PASSPHRASE') fail(KEY, ENCRYPTED);
    fail(KEY, 'the private key cannot be read');
  }
  checkStrength(key);
  return key;
}

function checkStrength(key: KeyObject): void {
  const details = key.asymmetricKeyDetails ?? {};
  switch (key.asymmetricKeyType) {
    case 'rsa': {
      const bits = details.modulusLength ?? 0;
      if (bits < MIN_RSA_BITS) fail(KEY, `the RSA key has ${bits} bits; at least ${MIN_RSA_BITS} are required`);
      return;
    }
    case 'ec': {
      const curve = details.namedCurve;
      if (curve === undefined || EC_CURVES[curve] === undefined) fail(KEY, `the EC key's curve is not supported; use P-256 or P-384`);
      return;
    }
    case 'ed25519':
      return;
    default:
      fail(KEY, `${key.asymmetricKeyType ?? 'this'} keys are not supported; use RSA (2048 bits or more), EC P-256 or P-384, or Ed25519`);
  }
}

function sameKey(privateKey: KeyObject, certificateKey: KeyObject): boolean {
  const fromPrivate = createPublicKey(privateKey);
  // Keys of two types never match, and must not reach equals(): OpenSSL's EVP_PKEY_eq then leaves
  // "different key types" in the thread's error queue, where Node does not clear it, and the next
  // unrelated key load in this thread (a zone's DNSSEC key in the DNS server beside the API) fails with it.
  if (fromPrivate.asymmetricKeyType !== certificateKey.asymmetricKeyType) return false;
  const spki = (k: KeyObject) => k.export({ type: 'spki', format: 'der' });
  // The DER comparison is the rule; equals() also accepts the same key encoded differently (e.g. a compressed EC point).
  return spki(fromPrivate).equals(spki(certificateKey)) || fromPrivate.equals(certificateKey);
}

// ---- PEM (RFC 7468) -------------------------------------------------------------------------------

interface PemBlock {
  label: string;
  der: Buffer;
  /** RFC 1421 headers (Proc-Type, DEK-Info) were present. */
  headers: boolean;
  /** A legacy `Proc-Type: 4,ENCRYPTED` block. */
  encrypted: boolean;
}

const BOUNDARY = /-----(BEGIN|END) ([A-Z0-9]+(?: [A-Z0-9]+)*)-----/g;
const BEGIN_LINE = /^-----BEGIN ([A-Z0-9 ]+)-----$/;
const END_LINE = /^-----END ([A-Z0-9 ]+)-----$/;
const HEADER_LINE = /^[A-Za-z0-9-]+:/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** PEM blocks with nothing but whitespace around them. Messages name the block by its number, never its content. */
function readPem(text: string, field: string, what: string): PemBlock[] {
  // Files concatenated without a final newline put END and BEGIN on one line: split them first.
  const lines = text.replace(BOUNDARY, '\n$&\n').split(/\r?\n|\r/);
  const blocks: PemBlock[] = [];
  let open: { label: string; lines: string[] } | undefined;
  for (const raw of lines) {
    const line = raw.trim();
    if (open === undefined) {
      if (line === '') continue;
      if (!BEGIN_LINE.test(line)) fail(field, `unexpected text outside the PEM blocks; send only the ${what} in PEM`);
      if (blocks.length > MAX_CHAIN_CERTIFICATES) break; // the caller reports "too many"
      open = { label: line.slice('-----BEGIN '.length, -'-----'.length), lines: [] };
      continue;
    }
    if (!END_LINE.test(line)) {
      open.lines.push(line);
      continue;
    }
    const n = blocks.length + 1;
    const label = line.slice('-----END '.length, -'-----'.length);
    if (label !== open.label) fail(field, `PEM block ${n} begins with "${open.label}" but ends with "${label}"`);
    blocks.push(decodeBlock(open.label, open.lines, field, n));
    open = undefined;
  }
  if (open !== undefined) fail(field, `PEM block ${blocks.length + 1} ("${open.label}") has no END line`);
  return blocks;
}

function decodeBlock(label: string, content: string[], field: string, n: number): PemBlock {
  // Splitting at the boundaries may have left blank lines after BEGIN.
  const lines = content.slice(Math.max(0, content.findIndex((l) => l !== '')));
  // RFC 1421 headers come first and end with a blank line.
  let body = lines;
  let headers: string[] = [];
  if (lines[0] !== undefined && HEADER_LINE.test(lines[0])) {
    const blank = lines.indexOf('');
    headers = blank === -1 ? lines.filter((l) => HEADER_LINE.test(l)) : lines.slice(0, blank);
    body = blank === -1 ? lines.slice(headers.length) : lines.slice(blank + 1);
  }
  const encrypted = headers.some((h) => /^Proc-Type:\s*4\s*,\s*ENCRYPTED\s*$/i.test(h));
  const base64 = body.join('').replace(/\s+/g, '');
  if (!encrypted && (base64 === '' || !BASE64.test(base64))) fail(field, `PEM block ${n} is not valid base64`);
  return { label, der: Buffer.from(base64, 'base64'), headers: headers.length > 0, encrypted };
}

// ---- host names ---------------------------------------------------------------------------------

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

function covers(leaf: X509Certificate, hostname: string): boolean {
  const name = asciiHostname(hostname);
  if (name === undefined) return false;
  // OpenSSL's X509_check_host: exact names and whole-leftmost-label wildcards only, CN only without a DNS SAN.
  const match = leaf.checkHost(name, {
    subject: 'default',
    wildcards: true,
    partialWildcards: false,
    multiLabelWildcards: false,
    singleLabelSubdomains: false,
  });
  return match !== undefined;
}

/** A lowercase A-label host name, or undefined for anything that is not one (IP addresses, wildcards, empty labels). */
function asciiHostname(hostname: string): string | undefined {
  let name = hostname.endsWith('.') ? hostname.slice(0, -1) : hostname;
  // U-labels become A-labels; a name that IDNA refuses becomes ''.
  name = /^[\x21-\x7e]*$/.test(name) ? name.toLowerCase() : domainToASCII(name);
  if (name === '' || name.length > 253) return undefined;
  const labels = name.split('.');
  if (!labels.every((l) => LABEL.test(l))) return undefined;
  if (/^[0-9]+$/.test(labels.at(-1) ?? '')) return undefined; // an IPv4 address, not a host name
  return name;
}
