// Custom TLS certificates: chain shape and order, validity dates, key formats and strength, key match,
// host names covered; every refusal a 400 naming the field and quoting nothing of the private key.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createPrivateKey, generateKeyPairSync, X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { ApiError } from '../../src/errors.ts';
import { validateCertificate } from '../../src/security/certificate.ts';

const DAY = 86_400_000;

/** Every certificate and key the tests need, made once with the openssl CLI in a temporary directory. */
function makePki() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'edgeplane-cert-'));
  const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  const read = (name: string) => fs.readFileSync(path.join(dir, name), 'utf8');
  const selfSigned = (name: string, newkey: string[], subject: string, ...extensions: string[]) => {
    openssl('req', '-x509', ...newkey, '-nodes', '-keyout', `${name}.key`, '-out', `${name}.crt`, '-subj', subject, '-days', '30',
      ...extensions.flatMap((e) => ['-addext', e]));
    return { crt: read(`${name}.crt`), key: read(`${name}.key`) };
  };
  const P256 = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256'];
  try {
    const ec = selfSigned('ec', P256, '/CN=example.com', 'subjectAltName=DNS:example.com,DNS:*.example.com,DNS:xn--bcher-kva.example');
    const rsa = selfSigned('rsa', ['-newkey', 'rsa:2048'], '/CN=rsa.example.net');
    const ed25519 = selfSigned('ed', ['-newkey', 'ed25519'], '/CN=cn.example.org', 'subjectAltName=DNS:san.example.org');
    const ipOnly = selfSigned('ip', P256, '/CN=cn-only.example.org', 'subjectAltName=IP:192.0.2.1');
    const partial = selfSigned('partial', P256, '/CN=partial', 'subjectAltName=DNS:w*.example.com');
    const weak = selfSigned('weak', ['-newkey', 'rsa:1024'], '/CN=weak.example');
    const p521 = selfSigned('p521', ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-521'], '/CN=p521.example');
    const other = selfSigned('other', P256, '/CN=example.com', 'subjectAltName=DNS:example.com');
    // Forged intermediate: the real one's name, another key, no subject key identifier.
    const fake = selfSigned('fake', P256, '/CN=Test Intermediate', 'basicConstraints=critical,CA:TRUE', 'subjectKeyIdentifier=none', 'authorityKeyIdentifier=none');

    // Root → intermediate → leaf.
    const root = selfSigned('root', ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-384'], '/CN=Test Root',
      'basicConstraints=critical,CA:TRUE', 'keyUsage=critical,keyCertSign,cRLSign');
    fs.writeFileSync(path.join(dir, 'ca.ext'), 'basicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign,cRLSign\nsubjectKeyIdentifier=hash\nauthorityKeyIdentifier=keyid\n');
    fs.writeFileSync(path.join(dir, 'leaf.ext'), 'subjectAltName=DNS:chain.example.com\nauthorityKeyIdentifier=keyid\n');
    openssl('req', '-new', ...P256, '-nodes', '-keyout', 'inter.key', '-out', 'inter.csr', '-subj', '/CN=Test Intermediate');
    openssl('x509', '-req', '-in', 'inter.csr', '-CA', 'root.crt', '-CAkey', 'root.key', '-set_serial', '2', '-days', '30', '-extfile', 'ca.ext', '-out', 'inter.crt');
    openssl('req', '-new', ...P256, '-nodes', '-keyout', 'leaf.key', '-out', 'leaf.csr', '-subj', '/CN=chain.example.com');
    openssl('x509', '-req', '-in', 'leaf.csr', '-CA', 'inter.crt', '-CAkey', 'inter.key', '-set_serial', '3', '-days', '30', '-extfile', 'leaf.ext', '-out', 'leaf.crt');

    // The same keys in other PEM forms.
    openssl('pkcs8', '-topk8', '-v2', 'aes-256-cbc', '-passout', 'pass:x', '-in', 'ec.key', '-out', 'ec-pkcs8-encrypted.key');
    openssl('ec', '-in', 'ec.key', '-aes256', '-passout', 'pass:x', '-out', 'ec-legacy-encrypted.key');
    openssl('rsa', '-in', 'rsa.key', '-traditional', '-out', 'rsa-pkcs1.key');
    openssl('ecparam', '-name', 'prime256v1', '-genkey', '-out', 'sec1.key');
    openssl('req', '-x509', '-key', 'sec1.key', '-out', 'sec1.crt', '-subj', '/CN=sec1.example', '-days', '30');

    return {
      ec, rsa, ed25519, ipOnly, partial, weak, p521, other, fake, root,
      inter: { crt: read('inter.crt'), key: read('inter.key') },
      leaf: { crt: read('leaf.crt'), key: read('leaf.key') },
      sec1: { crt: read('sec1.crt'), key: read('sec1.key') },
      rsaPkcs1Key: read('rsa-pkcs1.key'),
      ecPkcs8EncryptedKey: read('ec-pkcs8-encrypted.key'),
      ecLegacyEncryptedKey: read('ec-legacy-encrypted.key'),
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const pki = makePki();
const allKeys = [
  pki.ec, pki.rsa, pki.ed25519, pki.ipOnly, pki.partial, pki.weak, pki.p521, pki.other, pki.fake, pki.root, pki.inter, pki.leaf, pki.sec1,
].map((p) => p.key).concat(pki.rsaPkcs1Key, pki.ecPkcs8EncryptedKey, pki.ecLegacyEncryptedKey);
const keyLines = [...new Set(allKeys.flatMap((k) => k.split('\n')).map((l) => l.trim()).filter((l) => l !== ''))];

/** Asserts a 400 naming exactly `field` (or these fields), whose message matches, and that quotes no line of any private key. */
function refused(f: () => unknown, field: string | string[], message: RegExp): ApiError {
  let error: unknown;
  try {
    f();
  } catch (e) {
    error = e;
  }
  assert.ok(error instanceof ApiError, `expected an ApiError, got ${String(error)}`);
  assert.equal(error.status, 400);
  assert.equal(error.code, 'invalid_input');
  assert.deepEqual(Object.keys(error.fields ?? {}).sort(), [field].flat().sort());
  assert.match(error.message, message);
  const body = JSON.stringify(error.body());
  for (const line of keyLines) assert.ok(!body.includes(line), `the error quotes a private key line: ${body}`);
  return error;
}

const validFrom = (pem: string) => new X509Certificate(pem).validFromDate;
const validTo = (pem: string) => new X509Certificate(pem).validToDate;

describe('validateCertificate: accepted certificates', () => {
  test('an EC P-256 leaf: expiresAt is its notAfter, the chain is re-encoded', () => {
    const cert = validateCertificate(pki.ec.crt, pki.ec.key);
    assert.equal(cert.expiresAt, Date.parse(new X509Certificate(pki.ec.crt).validTo) / 1000);
    assert.equal(cert.chain, new X509Certificate(pki.ec.crt).toString());
    assert.ok(cert.chain.endsWith('-----END CERTIFICATE-----\n'));
  });

  test('covers: exact and one-label wildcard SANs, case-insensitive, IDN, nothing else', () => {
    const cert = validateCertificate(pki.ec.crt, pki.ec.key);
    assert.equal(cert.covers('example.com'), true);
    assert.equal(cert.covers('EXAMPLE.COM'), true);
    assert.equal(cert.covers('www.example.com'), true);
    assert.equal(cert.covers('WWW.Example.Com'), true);
    assert.equal(cert.covers('example.com.'), true);
    assert.equal(cert.covers('a.b.example.com'), false);
    assert.equal(cert.covers('other.com'), false);
    assert.equal(cert.covers('example.com.evil.net'), false);
    assert.equal(cert.covers('xn--bcher-kva.example'), true);
    assert.equal(cert.covers('XN--BCHER-KVA.example'), true);
    assert.equal(cert.covers('bücher.example'), true, 'a U-label is compared as its A-label');
    assert.equal(cert.covers('xn--bcher-kva.example.com'), true, 'the wildcard covers an A-label');
    // Not host names: never covered, whatever the wildcard would say.
    for (const name of ['', '.', '.example.com', '*.example.com', 'www..example.com', '-a.example.com', 'a b.example.com', '192.0.2.1']) {
      assert.equal(cert.covers(name), false, name);
    }
  });

  test('covers: the subject CN only when there is no DNS SAN; no partial wildcards', () => {
    assert.equal(validateCertificate(pki.rsa.crt, pki.rsa.key).covers('rsa.example.net'), true);
    assert.equal(validateCertificate(pki.ipOnly.crt, pki.ipOnly.key).covers('cn-only.example.org'), true);
    const ed = validateCertificate(pki.ed25519.crt, pki.ed25519.key);
    assert.equal(ed.covers('san.example.org'), true);
    assert.equal(ed.covers('cn.example.org'), false);
    assert.equal(validateCertificate(pki.partial.crt, pki.partial.key).covers('www.example.com'), false);
  });

  test('RSA 2048 (PKCS#8 and PKCS#1), EC in SEC1 with its EC PARAMETERS block, Ed25519', () => {
    validateCertificate(pki.rsa.crt, pki.rsa.key);
    validateCertificate(pki.rsa.crt, pki.rsaPkcs1Key);
    assert.match(pki.sec1.key, /-----BEGIN EC PARAMETERS-----[\s\S]*-----BEGIN EC PRIVATE KEY-----/);
    validateCertificate(pki.sec1.crt, pki.sec1.key);
    validateCertificate(pki.ed25519.crt, pki.ed25519.key);
  });

  test('a chain in order: leaf, intermediate (and root); expiresAt is the leaf\'s', () => {
    const chain = pki.leaf.crt + pki.inter.crt + pki.root.crt;
    const cert = validateCertificate(chain, pki.leaf.key);
    assert.equal(cert.chain, chain);
    assert.equal(cert.expiresAt, validTo(pki.leaf.crt).getTime() / 1000);
    assert.equal(cert.covers('chain.example.com'), true);
    assert.equal(validateCertificate(pki.leaf.crt + pki.inter.crt, pki.leaf.key).chain, pki.leaf.crt + pki.inter.crt);
  });

  test('normalised: CRLF, blank lines, indentation and END/BEGIN on one line', () => {
    const messy = `\n\n  ${pki.leaf.crt.trimEnd()}${pki.inter.crt}\n\n`.replace(/\n/g, '\r\n').replace(/\r\nMI/, '\r\n   MI');
    assert.equal(validateCertificate(messy, pki.leaf.key).chain, pki.leaf.crt + pki.inter.crt);
  });

  test('valid from notBefore through notAfter inclusive', () => {
    validateCertificate(pki.ec.crt, pki.ec.key, validFrom(pki.ec.crt));
    validateCertificate(pki.ec.crt, pki.ec.key, validTo(pki.ec.crt));
  });
});

describe('validateCertificate: refused certificates (service_ssl_crt)', () => {
  test('expired and not yet valid, with the date', () => {
    const expired = refused(() => validateCertificate(pki.ec.crt, pki.ec.key, new Date(validTo(pki.ec.crt).getTime() + 2 * DAY)),
      'service_ssl_crt', /expired on \d{4}-\d\d-\d\dT/);
    assert.ok(expired.message.includes(validTo(pki.ec.crt).toISOString().replace('.000Z', 'Z')));
    const early = refused(() => validateCertificate(pki.ec.crt, pki.ec.key, new Date(validFrom(pki.ec.crt).getTime() - DAY)),
      'service_ssl_crt', /not valid yet/);
    assert.ok(early.message.includes(validFrom(pki.ec.crt).toISOString().replace('.000Z', 'Z')));
  });

  test('an out-of-order chain says so', () => {
    refused(() => validateCertificate(pki.leaf.crt + pki.root.crt + pki.inter.crt, pki.leaf.key), 'service_ssl_crt', /out of order.*issuer is certificate 3/);
    refused(() => validateCertificate(pki.inter.crt + pki.leaf.crt, pki.leaf.key), 'service_ssl_crt', /out of order/);
  });

  test('a certificate that is not the issuer of the one before it', () => {
    refused(() => validateCertificate(pki.leaf.crt + pki.ec.crt, pki.leaf.key), 'service_ssl_crt', /certificate 2 \(CN=example.com\) is not the issuer of certificate 1/);
    refused(() => validateCertificate(pki.leaf.crt + pki.inter.crt + pki.inter.crt, pki.leaf.key), 'service_ssl_crt', /certificate 3 .* is not the issuer of certificate 2/);
  });

  test('an issuer with the right name whose key did not sign the certificate', () => {
    refused(() => validateCertificate(pki.leaf.crt + pki.fake.crt, pki.leaf.key), 'service_ssl_crt', /signature of certificate 1 does not verify/);
  });

  test('nothing, garbage, text around the blocks, unterminated or mislabelled blocks', () => {
    const body = pki.ec.crt.split('\n').slice(1, -2).join('\n');
    const cases: [string, RegExp][] = [
      ['', /no certificate/],
      ['  \n\n', /no certificate/],
      ['hello', /unexpected text outside/],
      [`subject=CN = example.com\n${pki.ec.crt}`, /unexpected text outside/],
      [`${pki.ec.crt}trailing words\n`, /unexpected text outside/],
      ['-----BEGIN CERTIFICATE-----\nnot base64!\n-----END CERTIFICATE-----\n', /not valid base64/],
      ['-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----\n', /not valid base64/],
      ['-----BEGIN CERTIFICATE-----\nSGVsbG8sIHdvcmxkIQ==\n-----END CERTIFICATE-----\n', /certificate 1 is not a valid X.509 certificate/],
      [`-----BEGIN CERTIFICATE-----\n${body}\n`, /block 1 \("CERTIFICATE"\) has no END line/],
      [`-----BEGIN CERTIFICATE-----\n${body}\n-----END X509 CRL-----\n`, /begins with "CERTIFICATE" but ends with "X509 CRL"/],
      [`-----BEGIN X509 CRL-----\n${body}\n-----END X509 CRL-----\n`, /block 1 is a "X509 CRL"/],
      [`-----BEGIN CERTIFICATE-----\nProc-Type: 4,ENCRYPTED\n\n${body}\n-----END CERTIFICATE-----\n`, /PEM headers/],
    ];
    for (const [crt, message] of cases) refused(() => validateCertificate(crt, pki.ec.key), 'service_ssl_crt', message);
  });

  test('trailing bytes after the DER certificate', () => {
    const der = Buffer.concat([new X509Certificate(pki.ec.crt).raw, Buffer.from([0, 0])]);
    const pem = `-----BEGIN CERTIFICATE-----\n${der.toString('base64').replace(/.{64}/g, '$&\n')}\n-----END CERTIFICATE-----\n`;
    refused(() => validateCertificate(pem, pki.ec.key), 'service_ssl_crt', /trailing data|not a valid X.509/);
  });

  test('a private key in the certificate field is pointed to the key field', () => {
    refused(() => validateCertificate(pki.ec.key, pki.ec.key), 'service_ssl_crt', /block 1 is a private key; send it as service_ssl_key/);
    refused(() => validateCertificate(pki.ec.crt + pki.ec.key, pki.ec.key), 'service_ssl_crt', /block 2 is a private key/);
  });

  test('at most 10 certificates and 64 KiB', () => {
    refused(() => validateCertificate(pki.leaf.crt.repeat(11), pki.leaf.key), 'service_ssl_crt', /too many certificates: at most 10/);
    refused(() => validateCertificate(pki.ec.crt + ' '.repeat(64 * 1024), pki.ec.key), 'service_ssl_crt', /larger than 64 KiB/);
    // Ten is fine as far as counting goes (then the order check speaks).
    refused(() => validateCertificate(pki.leaf.crt.repeat(10), pki.leaf.key), 'service_ssl_crt', /not the issuer/);
  });
});

describe('validateCertificate: refused keys (service_ssl_key)', () => {
  test('encrypted keys, PKCS#8 and legacy Proc-Type', () => {
    assert.match(pki.ecPkcs8EncryptedKey, /ENCRYPTED PRIVATE KEY/);
    assert.match(pki.ecLegacyEncryptedKey, /Proc-Type: 4,ENCRYPTED/);
    for (const key of [pki.ecPkcs8EncryptedKey, pki.ecLegacyEncryptedKey]) {
      const e = refused(() => validateCertificate(pki.ec.crt, key), 'service_ssl_key', /^the private key is encrypted; send it without a passphrase$/);
      assert.equal(e.fields?.service_ssl_key, 'the private key is encrypted; send it without a passphrase');
    }
  });

  test('a key that does not match the certificate', () => {
    for (const key of [pki.other.key, pki.rsa.key, pki.ed25519.key, pki.inter.key]) {
      refused(() => validateCertificate(pki.ec.crt, key), 'service_ssl_key', /^the private key does not match the certificate$/);
    }
    refused(() => validateCertificate(pki.leaf.crt + pki.inter.crt, pki.inter.key), 'service_ssl_key', /does not match/);
  });

  test('a key of another type than the certificate\'s leaves no OpenSSL error behind for the next crypto call', () => {
    // OpenSSL keeps errors in a per-thread queue. Comparing keys of two types once left
    // ERR_OSSL_EVP_DIFFERENT_KEY_TYPES in it, and the next key load in the thread (a DNS zone's
    // DNSSEC key, in the thread that also runs the API) failed with it.
    const der = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'der', type: 'pkcs8' });
    for (const [crt, key] of [[pki.rsa, pki.ec], [pki.ec, pki.rsa], [pki.ec, pki.ed25519], [pki.ed25519, pki.rsa], [pki.root, pki.ec]] as const) {
      refused(() => validateCertificate(crt.crt, key.key), 'service_ssl_key', /does not match/);
      assert.doesNotThrow(() => createPrivateKey({ key: der, format: 'der', type: 'pkcs8' }));
    }
  });

  test('RSA under 2048 bits and unsupported curves', () => {
    refused(() => validateCertificate(pki.weak.crt, pki.weak.key), 'service_ssl_key', /RSA key has 1024 bits; at least 2048/);
    refused(() => validateCertificate(pki.p521.crt, pki.p521.key), 'service_ssl_key', /curve is not supported; use P-256 or P-384/);
  });

  test('unparsable keys, missing keys, a certificate or two keys in the key field', () => {
    const keyBody = pki.ec.key.split('\n').slice(1, -2).join('\n');
    const cases: [string, RegExp][] = [
      ['', /no private key/],
      ['secret', /unexpected text outside/],
      ['-----BEGIN PRIVATE KEY-----\nSGVsbG8sIHdvcmxkIQ==\n-----END PRIVATE KEY-----\n', /cannot be read/],
      [`-----BEGIN PRIVATE KEY-----\n${keyBody.split('\n')[0]!}\n-----END PRIVATE KEY-----\n`, /cannot be read/],
      [`-----BEGIN PRIVATE KEY-----\n${keyBody.slice(0, 40)}!\n-----END PRIVATE KEY-----\n`, /not valid base64/],
      [`-----BEGIN PRIVATE KEY-----\n${keyBody}\n`, /block 1 \("PRIVATE KEY"\) has no END line/],
      [`-----BEGIN PUBLIC KEY-----\n${keyBody}\n-----END PUBLIC KEY-----\n`, /"PUBLIC KEY" block is not a private key/],
      [pki.ec.crt, /this is a certificate; send it as service_ssl_crt/],
      [pki.ec.key + pki.ec.crt, /a single private key, found 2/],
      [pki.ec.key + pki.other.key, /a single private key, found 2/],
      [pki.ec.key + ' '.repeat(16 * 1024), /larger than 16 KiB/],
    ];
    for (const [key, message] of cases) refused(() => validateCertificate(pki.ec.crt, key), 'service_ssl_key', message);
  });

  test('both fields wrong: both reported at once', () => {
    const e = refused(() => validateCertificate('nonsense', pki.ecPkcs8EncryptedKey), ['service_ssl_crt', 'service_ssl_key'], /outside the PEM blocks.*; the private key is encrypted/);
    assert.match(e.fields?.service_ssl_crt ?? '', /unexpected text/);
  });

  test('messages quote no line of the private key even when the key lands in the certificate field', () => {
    // refused() checks every body against every key line; these feed it key text in odd places.
    refused(() => validateCertificate(pki.rsa.key.replace('-----BEGIN', 'junk\n-----BEGIN'), pki.rsa.key), 'service_ssl_crt', /unexpected text/);
    refused(() => validateCertificate(pki.rsa.key.split('\n').slice(1).join('\n'), pki.rsa.key), 'service_ssl_crt', /unexpected text/);
    refused(() => validateCertificate(pki.ec.crt, pki.rsa.key.split('\n').slice(1).join('\n')), 'service_ssl_key', /unexpected text/);
  });
});
