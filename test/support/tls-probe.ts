// TLS clients for the tests: a handshake that reports what it got, and a relay that keeps every byte
// the server sent, to see on the wire what a server does or does not send (a certificate, an alert).
import { createPrivateKey, X509Certificate } from 'node:crypto';
import net from 'node:net';
import tls from 'node:tls';

export interface Handshake {
  /** The negotiated ALPN protocol; false: none. */
  alpn: string | false;
  protocol: string | null;
  /** The leaf the server sent, and the rest of what it sent (leaf first). */
  leaf: X509Certificate;
  sent: X509Certificate[];
}

/** A TLS handshake with `options` (servername, ALPN, versions...); rejects with the client's error. */
export function handshake(port: number, options: tls.ConnectionOptions = {}): Promise<Handshake> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host: '127.0.0.1', port, rejectUnauthorized: false, ...options }, () => {
      const sent: X509Certificate[] = [];
      // getPeerCertificate(true) walks issuerCertificate through what the server sent (and the trust
      // store when verified). Called after getPeerX509Certificate(), it returns {} (Node 24).
      // A self-signed certificate is its own issuer: the walk stops at one seen before.
      let cert: Partial<tls.DetailedPeerCertificate> = socket.getPeerCertificate(true);
      const seen = new Set<string>();
      while (cert.raw !== undefined && cert.fingerprint256 !== undefined && !seen.has(cert.fingerprint256)) {
        seen.add(cert.fingerprint256);
        sent.push(new X509Certificate(cert.raw));
        cert = cert.issuerCertificate ?? {};
      }
      const result = { alpn: socket.alpnProtocol ?? false, protocol: socket.getProtocol(), leaf: sent[0]!, sent };
      socket.destroy();
      resolve(result);
    });
    socket.once('error', reject);
  });
}

export interface Relay {
  port: number;
  /** Every byte the server sent through the relay so far, all connections together. */
  fromServer(): Buffer;
  close(): Promise<void>;
}

/** A TCP relay to 127.0.0.1:`target` that records what the server sends. */
export async function recordingRelay(target: number): Promise<Relay> {
  const chunks: Buffer[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(target, '127.0.0.1');
    sockets.add(client).add(upstream);
    upstream.on('data', (d: Buffer) => chunks.push(d));
    client.pipe(upstream).pipe(client);
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    fromServer: () => Buffer.concat(chunks),
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** TLS records as sent: content type (21 alert, 22 handshake, 23 application data) and payload. */
export function tlsRecords(bytes: Buffer): { type: number; payload: Buffer }[] {
  const records: { type: number; payload: Buffer }[] = [];
  let at = 0;
  while (at + 5 <= bytes.length) {
    const length = bytes.readUInt16BE(at + 3);
    records.push({ type: bytes[at]!, payload: bytes.subarray(at + 5, at + 5 + length) });
    at += 5 + length;
  }
  return records;
}

/** The byte strings that would give a private key away: its PKCS#8 DER and its private scalar (EC) or exponent (RSA). */
export function keySecrets(keyPem: string): Buffer[] {
  const key = createPrivateKey(keyPem);
  const jwk = key.export({ format: 'jwk' });
  const secret = jwk.d === undefined ? [] : [Buffer.from(jwk.d, 'base64url')];
  return [key.export({ format: 'der', type: 'pkcs8' }), ...secret];
}
