// Test certificates and keys made with the openssl CLI (OpenSSL 3.0 or later) in a temporary directory.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface KeyPair {
  crt: string;
  key: string;
}

export interface CertificateOptions {
  /** DNS subject alternative names; default: the common name. */
  sans?: string[];
  /** Validity window; default: from now for 30 days. */
  notBefore?: Date;
  notAfter?: Date;
  /** The key's type; default: EC P-256. */
  key?: 'ec' | 'rsa';
}

const P256 = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256'];
const RSA = ['-newkey', 'rsa:2048'];

function inTempDir<T>(work: (openssl: (...args: string[]) => void, file: (name: string) => string) => T): T {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'edgeplane-certs-'));
  try {
    const openssl = (...args: string[]) => {
      execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    };
    return work(openssl, (name) => path.join(dir, name));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** `20200101000000Z`, the form `openssl ca -startdate/-enddate` takes. */
const opensslDate = (date: Date) => date.toISOString().replace(/[-:T]/g, '').replace(/\.\d{3}Z$/, 'Z');

/**
 * A self-signed certificate for `name` (EC P-256, or RSA 2048) and its unencrypted PKCS#8 key. With explicit dates
 * (e.g. wholly in the past) it is signed by `openssl ca -selfsign`, since OpenSSL 3.0's `req` and
 * `x509` only take a number of days from now.
 */
export function selfSignedCertificate(name: string, options: CertificateOptions = {}): KeyPair {
  const san = `subjectAltName=${(options.sans ?? [name]).map((s) => `DNS:${s}`).join(',')}`;
  const newKey = options.key === 'rsa' ? RSA : P256;
  return inTempDir((openssl, file) => {
    if (options.notBefore === undefined && options.notAfter === undefined) {
      openssl('req', '-x509', ...newKey, '-nodes', '-keyout', 'cert.key', '-out', 'cert.crt', '-subj', `/CN=${name}`, '-days', '30', '-addext', san);
    } else {
      const notBefore = options.notBefore ?? new Date();
      const notAfter = options.notAfter ?? new Date(notBefore.getTime() + 30 * 86_400_000);
      fs.mkdirSync(file('db'));
      fs.writeFileSync(file('db/index.txt'), '');
      fs.writeFileSync(file('db/serial'), '01\n');
      fs.writeFileSync(
        file('ca.cnf'),
        [
          '[ca]', 'default_ca = test',
          '[test]', 'database = db/index.txt', 'new_certs_dir = db', 'serial = db/serial', 'default_md = sha256',
          'policy = any', 'copy_extensions = copy', 'unique_subject = no',
          '[any]', 'commonName = supplied',
        ].join('\n'),
      );
      openssl('req', '-new', ...newKey, '-nodes', '-keyout', 'cert.key', '-out', 'cert.csr', '-subj', `/CN=${name}`, '-addext', san);
      openssl('ca', '-batch', '-config', 'ca.cnf', '-selfsign', '-keyfile', 'cert.key', '-in', 'cert.csr', '-out', 'cert.crt', '-notext',
        '-startdate', opensslDate(notBefore), '-enddate', opensslDate(notAfter));
    }
    return { crt: fs.readFileSync(file('cert.crt'), 'utf8'), key: fs.readFileSync(file('cert.key'), 'utf8') };
  });
}

/** A fresh unencrypted EC P-256 private key (PKCS#8 PEM). */
export function privateKey(): string {
  return inTempDir((openssl, file) => {
    openssl('genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', 'key.pem');
    return fs.readFileSync(file('key.pem'), 'utf8');
  });
}

/** The key encrypted with a passphrase (PKCS#8 `ENCRYPTED PRIVATE KEY`). */
export function encryptedKey(key: string, passphrase = 'test passphrase'): string {
  return inTempDir((openssl, file) => {
    fs.writeFileSync(file('plain.pem'), key);
    openssl('pkcs8', '-topk8', '-v2', 'aes-256-cbc', '-passout', `pass:${passphrase}`, '-in', 'plain.pem', '-out', 'encrypted.pem');
    return fs.readFileSync(file('encrypted.pem'), 'utf8');
  });
}

/** The base64 lines of a PEM block (no BEGIN/END lines): what must never leak. */
export function pemBodyLines(pem: string): string[] {
  return pem.split('\n').map((l) => l.trim()).filter((l) => l !== '' && !l.startsWith('-----'));
}

export interface CertificateChain extends KeyPair {
  /** The leaf, then the intermediate: what a server sends. */
  chain: string;
  /** The self-signed root (not in `chain`): what a client trusts. */
  root: string;
  intermediate: string;
}

/**
 * A root → intermediate → leaf chain (EC P-256) for `names` (DNS subject alternative names; IP
 * addresses become IP names), valid from now for 30 days.
 */
export function certificateChain(names: string[]): CertificateChain {
  const [first] = names;
  if (first === undefined) throw new Error('certificateChain needs a name');
  const altNames = names.map((n) => (/^[0-9.]+$|:/.test(n) ? `IP:${n}` : `DNS:${n}`)).join(',');
  return inTempDir((openssl, file) => {
    fs.writeFileSync(file('ca.ext'), 'basicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign,cRLSign\nsubjectKeyIdentifier=hash\nauthorityKeyIdentifier=keyid\n');
    fs.writeFileSync(file('leaf.ext'), `subjectAltName=${altNames}\nauthorityKeyIdentifier=keyid\nextendedKeyUsage=serverAuth\n`);
    openssl('req', '-x509', ...P256, '-nodes', '-keyout', 'root.key', '-out', 'root.crt', '-subj', '/CN=edgeplane test root', '-days', '30',
      '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign');
    openssl('req', '-new', ...P256, '-nodes', '-keyout', 'inter.key', '-out', 'inter.csr', '-subj', '/CN=edgeplane test intermediate');
    openssl('x509', '-req', '-in', 'inter.csr', '-CA', 'root.crt', '-CAkey', 'root.key', '-set_serial', '2', '-days', '30', '-extfile', 'ca.ext', '-out', 'inter.crt');
    openssl('req', '-new', ...P256, '-nodes', '-keyout', 'leaf.key', '-out', 'leaf.csr', '-subj', `/CN=${first}`);
    openssl('x509', '-req', '-in', 'leaf.csr', '-CA', 'inter.crt', '-CAkey', 'inter.key', '-set_serial', '3', '-days', '30', '-extfile', 'leaf.ext', '-out', 'leaf.crt');
    const read = (name: string) => fs.readFileSync(file(name), 'utf8');
    return { crt: read('leaf.crt'), key: read('leaf.key'), chain: read('leaf.crt') + read('inter.crt'), root: read('root.crt'), intermediate: read('inter.crt') };
  });
}
