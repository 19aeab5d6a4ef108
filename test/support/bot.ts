// The bot challenge as a browser meets it: a nonce for a challenge page's seed, found as the page's
// script does (with Node's SHA-256).
import { createHash } from 'node:crypto';
import { difficulty } from '../../src/security/proxy/steps/bot-proof.ts';

/** A nonce for `seed`. */
export function solve(seed: string): string {
  for (let n = 0; ; n++) {
    const digest = createHash('sha256').update(`${seed}.${n}`).digest();
    if (digest.readUInt32BE(0) >>> (32 - difficulty) === 0) return String(n);
  }
}

/** The seed of a challenge page, or undefined when the body is not one. */
export function seedOf(page: string): string | undefined {
  return /data-seed="([^"]*)"/.exec(page)?.[1];
}
