// One self-signed P-256 certificate naming every bench host: both proxies serve this same chain and
// key, so the TLS scenarios compare the same handshake (ECDSA P-256 signatures).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export interface Certificate {
  certFile: string;
  keyFile: string;
  /** PEM texts, for edgeplane's API. */
  cert: string;
  key: string;
}

export function makeCertificate(dir: string, names: string[]): Certificate {
  const certFile = path.join(dir, 'bench.crt');
  const keyFile = path.join(dir, 'bench.key');
  execFileSync(
    'openssl',
    [
      'req', '-x509', '-nodes',
      '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256',
      '-keyout', keyFile, '-out', certFile,
      '-days', '30',
      '-subj', `/CN=${names[0]!}`,
      '-addext', `subjectAltName=${names.map((n) => `DNS:${n}`).join(',')}`,
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  return { certFile, keyFile, cert: fs.readFileSync(certFile, 'utf8'), key: fs.readFileSync(keyFile, 'utf8') };
}
