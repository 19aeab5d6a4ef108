// Denial of existence generated on the fly, as a property over random zones and questions: no NSEC
// the server sends covers a name that exists (the flaw of CVE-2026-39155 in another server), and
// the NSECs cannot be walked to list the zone (ldns-walk).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import { buildQuery, udpExchange } from '../support/dns-client.ts';
import { bearer, call, login } from '../support/http.ts';
import { seededRandom } from '../support/prng.ts';
import { adminEmail, adminPassword, startService, type Service } from '../support/service.ts';

const run = promisify(execFile);
const zone = 'walk.test';

/** Labels of a name read off the wire (compression followed), leftmost first; and where it ends. */
function readName(message: Buffer, start: number): { labels: Buffer[]; next: number } {
  const labels: Buffer[] = [];
  let at = start;
  let next = -1;
  for (let hops = 0; hops < 64; ) {
    const size = message[at] ?? 0;
    if (size >= 0xc0) {
      if (next < 0) next = at + 2;
      at = ((size & 0x3f) << 8) | (message[at + 1] ?? 0);
      hops++;
      continue;
    }
    if (size === 0) return { labels, next: next < 0 ? at + 1 : next };
    labels.push(message.subarray(at + 1, at + 1 + size));
    at += 1 + size;
  }
  throw new Error('compression loop');
}

/** Every NSEC in a message, as owner and next name labels. */
function nsecs(message: Buffer): { owner: Buffer[]; next: Buffer[] }[] {
  const counts = [4, 6, 8, 10].map((o) => message.readUInt16BE(o));
  let at = readName(message, 12).next + 4;
  const out: { owner: Buffer[]; next: Buffer[] }[] = [];
  for (let i = 0; i < (counts[1] ?? 0) + (counts[2] ?? 0) + (counts[3] ?? 0); i++) {
    const { labels, next } = readName(message, at);
    const type = message.readUInt16BE(next);
    const length = message.readUInt16BE(next + 8);
    if (type === 47) out.push({ owner: labels, next: readName(message, next + 10).labels });
    at = next + 10 + length;
  }
  return out;
}

/** RFC 4034 §6.1, written here independently of the server's own. */
function compare(a: Buffer[], b: Buffer[]): number {
  // Only ASCII letters have a case; other octets compare as they are.
  const lower = (x: Buffer) => Buffer.from(x.map((o) => (o >= 0x41 && o <= 0x5a ? o | 0x20 : o)));
  for (let i = 1; i <= Math.min(a.length, b.length); i++) {
    const d = Buffer.compare(lower(a[a.length - i] ?? Buffer.alloc(0)), lower(b[b.length - i] ?? Buffer.alloc(0)));
    if (d !== 0) return d;
  }
  return a.length - b.length;
}

const labelsOf = (name: string) => (name === '' ? [] : name.split('.').map((l) => Buffer.from(l, 'latin1')));
const show = (labels: Buffer[]) => labels.map((l) => l.toString('latin1').replace(/[^\x21-\x7e]/g, (c) => `\\${String(c.charCodeAt(0)).padStart(3, '0')}`)).join('.');

describe('generated denial of existence', () => {
  let service: Service;
  let api: (method: string, path: string, body?: unknown) => ReturnType<typeof call>;
  // ldns-walk has no port option: as root, the server gets port 53 on an address of its own.
  const root = process.getuid?.() === 0;
  const walkAddress = `127.53.${String(1 + Math.floor(Math.random() * 250))}.${String(1 + Math.floor(Math.random() * 250))}`;
  const random = seededRandom(9824);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const label = () => Array.from({ length: 1 + Math.floor(random() * 3) }, () => pick(['a', 'b', 'c', 'm', 'z', '0', '9', '-'])).join('').replace(/^-|-$/g, 'x');
  const owners = new Set<string>();

  before(async () => {
    service = await startService({ engine: 'sqlite', env: root ? { EDGEPLANE_DNS_LISTEN: `${walkAddress}:53` } : {} });
    const auth = bearer((await login(service.url, adminEmail, adminPassword)).access);
    api = (method, p, body) => call(service.url, method, p, { auth, body });
    assert.equal((await api('POST', '/dns/v2/zones', { name: zone })).status, 200);
    const put = async (name: string, type: string, content: unknown[]) => {
      const response = await api('PUT', `/dns/v2/zones/${zone}/${name}/${type}`, { ttl: 300, resource_records: [{ content }] });
      assert.equal(response.status, 200, response.text);
      owners.add(name);
    };
    for (let i = 0; i < 60; i++) {
      const depth = 1 + Math.floor(random() * 3);
      const name = [...Array.from({ length: depth }, label), zone].join('.');
      if (random() < 0.15) await put(`*.${name}`, 'TXT', ['wildcard']);
      else if (random() < 0.1) await put(`_${label()}.${name}`, 'TXT', ['underscore']);
      else await put(name, 'A', ['192.0.2.1']);
    }
    await put(`cut.${zone}`, 'NS', [`ns.cut.${zone}.`]);
    await put(`ns.cut.${zone}`, 'A', ['192.0.2.53']);
    assert.equal((await api('PATCH', `/dns/v2/zones/${zone}/dnssec`, { enabled: true })).status, 200);
  });
  after(() => service.dispose());

  test('no generated NSEC covers a name that exists, over random questions', async () => {
    // Every name that exists: owners, the empty non-terminals above them, and the apex.
    const existing = new Set<string>([zone]);
    for (const owner of owners) for (let n = owner; n.length >= zone.length; n = n.slice(n.indexOf('.') + 1)) existing.add(n);
    const names = [...existing].map(labelsOf);
    const questions: string[] = [];
    for (const name of existing) {
      const first = name.split('.')[0] ?? '';
      const rest = name.slice(first.length + 1);
      questions.push(name, `${label()}.${name}`, `${first}-.${rest}`, `${first}a.${rest}`, `${first.slice(0, -1) || 'q'}.${rest}`);
      questions.push(`${first.slice(0, -1)}${String.fromCharCode((first.charCodeAt(first.length - 1) || 97) + 1)}.${rest}`);
      questions.push(`${first.slice(0, -1)}${String.fromCharCode((first.charCodeAt(first.length - 1) || 98) - 1)}.${rest}`);
    }
    let checked = 0;
    for (const question of questions) {
      if (!question.endsWith(`.${zone}`) && question !== zone) continue;
      const qtype = pick(['A', 'AAAA', 'TXT', 'NSEC', 'DS', 'MX', 'ANY']);
      const reply = await udpExchange(service.dnsPort, buildQuery(question, qtype, { dnssecOk: true }), 2000, root ? walkAddress : '127.0.0.1');
      for (const { owner, next } of nsecs(reply)) {
        checked++;
        assert.ok(compare(owner, next) < 0, `NSEC ${show(owner)} → ${show(next)} runs backwards (question ${question} ${qtype})`);
        for (const name of names) {
          const inside = compare(owner, name) < 0 && compare(name, next) < 0;
          assert.ok(!inside, `NSEC ${show(owner)} → ${show(next)} covers existing ${show(name)} (question ${question} ${qtype})`);
        }
      }
    }
    assert.ok(checked > questions.length / 2, `only ${String(checked)} NSECs for ${String(questions.length)} questions`);
  });

  test('ldns-walk cannot list the zone', async (t) => {
    if (!root) {
      t.skip('ldns-walk needs port 53: not root');
      return;
    }
    const { stdout } = await run('timeout', ['10', 'ldns-walk', `@${walkAddress}`, zone]).catch((e: unknown) => e as { stdout: string });
    // It sees the apex and then only names it made up itself, one below the other.
    assert.match(stdout, new RegExp(`^${zone.replace('.', '\\.')}\\.\\s`));
    for (const owner of owners) assert.ok(!stdout.includes(`${owner}.`) || owner === zone, `ldns-walk found ${owner}`);
  });
});
