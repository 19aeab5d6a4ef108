// First start on an empty store: the first administrator, with a generated password shown once.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { engines } from '../support/engines.ts';
import { bearer, call, login } from '../support/http.ts';
import { startService } from '../support/service.ts';

for (const engine of engines()) {
  describe(`first start (${engine})`, () => {
    test('without EDGEPLANE_ADMIN_PASSWORD a password is generated, printed once, and works', async () => {
      let service = await startService({ engine, env: { EDGEPLANE_ADMIN_PASSWORD: '', EDGEPLANE_ADMIN_EMAIL: 'Root@Example.com' } });
      try {
        const match = /created the first administrator root@example\.com; log in with the generated password (\S+) \(shown only this once\)/.exec(service.output());
        assert.ok(match?.[1], service.output());
        const me = await call(service.url, 'GET', '/iam/clients/me', { auth: bearer((await login(service.url, 'root@example.com', match[1])).access) });
        assert.equal(me.body.operator, true);
        assert.equal(me.body.users[0].groups[0].name, 'Administrators');
        // The password is not in the JSON log lines, only in the one plain announcement.
        const logLines = service.output().split('\n').filter((l) => l.startsWith('{'));
        assert.ok(logLines.every((l) => !l.includes(match[1] ?? '')));
        await service.stop();
        service = await service.restart();
        assert.doesNotMatch(service.output(), /generated password/);
      } finally {
        await service.dispose();
      }
    });
  });
}
