// The bot challenge's page: small HTML whose inline script solves the seed's proof of work
// (bot-proof.ts) and sends the browser to the proxy's verify path, which sets the clearance cookie
// and sends it back to where it was going. No external resource: the page works whatever the
// origin serves. The script is SHA-256 in plain JavaScript, not crypto.subtle, which browsers offer
// only over HTTPS. The script and style are constant, so a Content-Security-Policy admits exactly
// them by hash; the seed travels in an attribute, in characters that need no escaping.
import { createHash } from 'node:crypto';
import type { Answer } from '../exchange.ts';
import { difficulty } from './bot-proof.ts';

/** Where the page sends its solution: `?s=seed&n=nonce&to=path-and-query`. */
export const verifyPath = '/.edgeplane/challenge';

// One SHA-256 block (messages up to 55 ASCII characters), only the first word of the hash: the
// leading zero bits are all that is checked.
const script = `(function () {
  var K = [0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2];
  var w = new Int32Array(64);
  function first(m) {
    var i, a, b, t, u, A = 0x6a09e667, B = 0xbb67ae85, C = 0x3c6ef372, D = 0xa54ff53a,
      E = 0x510e527f, F = 0x9b05688c, G = 0x1f83d9ab, H = 0x5be0cd19;
    w.fill(0);
    for (i = 0; i < m.length; i++) w[i >> 2] |= m.charCodeAt(i) << (24 - (i & 3) * 8);
    w[m.length >> 2] |= 0x80 << (24 - (m.length & 3) * 8);
    w[15] = m.length * 8;
    for (i = 16; i < 64; i++) {
      a = w[i - 15];
      b = w[i - 2];
      w[i] = (((a >>> 7) | (a << 25)) ^ ((a >>> 18) | (a << 14)) ^ (a >>> 3)) + w[i - 16] + w[i - 7] +
        (((b >>> 17) | (b << 15)) ^ ((b >>> 19) | (b << 13)) ^ (b >>> 10));
    }
    for (i = 0; i < 64; i++) {
      t = (H + (((E >>> 6) | (E << 26)) ^ ((E >>> 11) | (E << 21)) ^ ((E >>> 25) | (E << 7))) + ((E & F) ^ (~E & G)) + K[i] + w[i]) | 0;
      u = ((((A >>> 2) | (A << 30)) ^ ((A >>> 13) | (A << 19)) ^ ((A >>> 22) | (A << 10))) + ((A & B) ^ (A & C) ^ (B & C))) | 0;
      H = G; G = F; F = E; E = (D + t) | 0; D = C; C = B; B = A; A = (t + u) | 0;
    }
    return (A + 0x6a09e667) >>> 0;
  }
  var seed = document.documentElement.getAttribute('data-seed'), n = 0;
  while (first(seed + '.' + n) >>> ${32 - difficulty} !== 0) n++;
  location.replace('${verifyPath}?s=' + seed + '&n=' + n + '&to=' + encodeURIComponent(location.pathname + location.search));
})();`;

const style = 'body{font:16px/1.5 system-ui,sans-serif;max-width:34em;margin:20vh auto;padding:0 1em;color:#333}';

const hashOf = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

const headers = Object.freeze({
  'cache-control': 'no-store',
  'content-security-policy': `default-src 'none'; script-src ${hashOf(script)}; style-src ${hashOf(style)}; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
  'x-robots-tag': 'noindex',
});

const before = '<!doctype html><html lang="en" data-seed="';
const after = `"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>Checking your browser</title><style>${style}</style></head><body><h1>One moment</h1><p>This site checks that you are using a browser before letting you in. It takes a second.</p><noscript><p>The check needs JavaScript: turn it on for this site, then reload the page.</p></noscript><script>${script}</script></body></html>\n`;

/** The page for a seed (bot-proof.ts's issueSeed: digits, `.`, base64url), as the answer to the request it stopped. */
export function challengePage(seed: string): Answer {
  return { status: 403, reason: 'bot_challenge', type: 'text/html; charset=utf-8', headers, body: before + seed + after };
}
