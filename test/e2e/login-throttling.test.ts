// Login throttling: IPv6 clients are throttled per /64, not per address.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { assertError } from '../support/assertions.ts';
import { engines } from '../support/engines.ts';
import { callFrom } from '../support/http.ts';
import { startService, type Service } from '../support/service.ts';

// IPv6 clients need the service on an IPv6 address and several source addresses: the test adds them
// to the loopback interface, which takes root (CI has it).
const root = process.getuid?.() === 0;
if (!root) process.stderr.write('\n*** not root: the IPv6 /64 login throttling test is SKIPPED (it adds addresses to lo). ***\n\n');

for (const engine of engines()) {
  describe(`login throttling keys IPv6 clients by /64 (${engine})`, { skip: !root && 'needs root to add IPv6 addresses to lo' }, () => {
    // fd00::/8 is for local use; a random /48 keeps parallel runs apart.
    const prefix = `fd00:${randomInt(0x10000).toString(16)}:${randomInt(0x10000).toString(16)}`;
    const sameA = `${prefix}:1::a`;
    const sameB = `${prefix}:1::b`;
    const other = `${prefix}:2::a`;
    let service: Service;
    let url: string;
    before(async () => {
      for (const address of [sameA, sameB, other]) execFileSync('ip', ['-6', 'addr', 'add', `${address}/128`, 'dev', 'lo', 'nodad']);
      service = await startService({ engine, env: { EDGEPLANE_API_LISTEN: '[::1]:0' } });
      url = service.url;
    });
    after(async () => {
      await service.dispose();
      for (const address of [sameA, sameB, other]) execFileSync('ip', ['-6', 'addr', 'del', `${address}/128`, 'dev', 'lo']);
    });

    const attempt = (localAddress: string, n: number) =>
      callFrom(url, 'POST', '/iam/auth/jwt/login', { localAddress, body: { username: `v6-${String(n)}-${localAddress}@example.com`, password: 'not the password' } });

    test('two addresses of one /64 share one budget of 5 a second; another /64 has its own', async () => {
      await new Promise((resolve) => setTimeout(resolve, 1100));
      // Each username once, so only the per-client budget counts.
      const shared = await Promise.all([0, 1, 2].flatMap((n) => [attempt(sameA, n), attempt(sameB, n)]));
      const statuses = shared.map((r) => r.status).sort();
      assert.deepEqual(statuses, [401, 401, 401, 401, 401, 429], 'six logins from one /64 within a second: the sixth is throttled');
      const limited = shared.find((r) => r.status === 429);
      assert.ok(limited);
      assertError(limited, 429, 'too_many_requests');
      assert.ok(Number(limited.headers.get('retry-after')) >= 1);

      const apart = await Promise.all([0, 1, 2, 3, 4].map((n) => attempt(other, n)));
      assert.deepEqual(apart.map((r) => r.status), [401, 401, 401, 401, 401], 'another /64 is not throttled with it');
    });
  });
}
