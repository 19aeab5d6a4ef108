// Secrets at rest (DNSSEC and TLS private keys): AES-256-GCM under the service's secret key, in a
// self-describing text form `v1.<iv>.<tag>.<ciphertext>` (base64url parts). The record's purpose is
// bound in as associated data, so a sealed value cannot be moved to another row or column.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

export interface Sealer {
  seal(plaintext: Buffer, context: string): string;
  open(sealed: string, context: string): Buffer;
}

export function sealer(secretKey: Uint8Array): Sealer {
  // Whatever the configured secret looks like, AES-256 gets exactly 32 bytes.
  const key = createHash('sha256').update('edgeplane sealed v1').update(secretKey).digest();
  return {
    seal: (plaintext, context) => {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv).setAAD(Buffer.from(context));
      const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
      return ['v1', iv, cipher.getAuthTag(), ciphertext].map((p) => (typeof p === 'string' ? p : p.toString('base64url'))).join('.');
    },
    open: (sealed, context) => {
      const [version, iv, tag, ciphertext] = sealed.split('.');
      if (version !== 'v1' || iv === undefined || tag === undefined || ciphertext === undefined) {
        throw new Error('not a sealed value');
      }
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'))
        .setAAD(Buffer.from(context))
        .setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]);
    },
  };
}
