// The CLI's store commands, on a real SQLite file.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { test } from 'node:test';
import { mainScript } from '../support/service.ts';

const run = promisify(execFile);

test('edgeplane migrate applies the migrations once, then reports the schema up to date', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'edgeplane-cli-'));
  try {
    const env = { EDGEPLANE_DATA_DIR: dataDir };
    assert.match((await run(process.execPath, [mainScript, 'migrate'], { env })).stdout, /^applied: 0001_accounts, 0002_dns, 0003_security/);
    assert.equal((await run(process.execPath, [mainScript, 'migrate'], { env })).stdout, 'schema is up to date\n');
    assert.ok(fs.existsSync(path.join(dataDir, 'edgeplane.sqlite')));
    await assert.rejects(run(process.execPath, [mainScript, 'account', 'create', '--email', 'x@y.example'], { env }), (e: { code: number; stderr: string }) => {
      assert.equal(e.code, 2);
      assert.match(e.stderr, /needs --email and --password/);
      return true;
    });
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
