// The README's curl quick start works verbatim (only the base URL points at the test's service),
// against the service started as the README starts it: a process of its own.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { test } from 'node:test';
import { root, startService } from './support/service.ts';

const run = promisify(execFile);

test('README quick start: log in, create an API token, call the API', async () => {
  const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
  const block = /<!-- quickstart[^>]*-->\s*```sh\n([\s\S]*?)```/.exec(readme)?.[1];
  assert.ok(block, 'the README has a quickstart block');
  assert.match(block, /^EP=http:\/\/127\.0\.0\.1:8080$/m);
  const service = await startService({
    engine: 'sqlite',
    process: true,
    env: { EDGEPLANE_ADMIN_EMAIL: 'admin@example.com', EDGEPLANE_ADMIN_PASSWORD: 'change-me-now' },
  });
  try {
    const script = `set -euo pipefail\n${block.replace(/^EP=.*$/m, `EP=${service.url}`)}`;
    const { stdout } = await run('bash', ['-c', script], { env: { PATH: `${path.dirname(process.execPath)}:${process.env['PATH'] ?? ''}` } });
    const me = JSON.parse(stdout) as { id: number; users: { email: string }[] };
    assert.equal(me.users[0]?.email, 'admin@example.com');
  } finally {
    await service.dispose();
  }
});
