// Configuration: defaults, validation with messages naming the setting, flags over environment.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../src/config.ts';
import { openFileLimit } from '../src/net/connection-admission.ts';
import { mainScript } from './support/service.ts';

const run = promisify(execFile);

describe('configuration', () => {
  test('defaults', () => {
    const config = loadConfig({});
    assert.deepEqual(config.apiListen, { host: '0.0.0.0', port: 8080 });
    assert.equal(config.databaseUrl, undefined);
    assert.equal(config.compat, 'seed');
    assert.equal(config.logLevel, 'info');
    assert.equal(config.accessTokenTtlSeconds, 3600);
    assert.equal(config.refreshTokenTtlSeconds, 86400);
    assert.match(config.dataDir, /\/data$/);
  });

  test('values from the environment; flags win over it', () => {
    const config = loadConfig(
      { EDGEPLANE_API_LISTEN: '[::1]:9000', EDGEPLANE_COMPAT: 'gcore', EDGEPLANE_ACCESS_TOKEN_TTL: '15m', EDGEPLANE_DATABASE_URL: 'postgres://u@h:5432/d' },
      { 'api-listen': '127.0.0.1:0', 'refresh-token-ttl': '2d' },
    );
    assert.deepEqual(config.apiListen, { host: '127.0.0.1', port: 0 });
    assert.equal(config.compat, 'gcore');
    assert.equal(config.accessTokenTtlSeconds, 900);
    assert.equal(config.refreshTokenTtlSeconds, 172800);
    assert.equal(config.databaseUrl, 'postgres://u@h:5432/d');
    const secondaries = loadConfig({ EDGEPLANE_DNS_TRANSFER_ALLOW: '192.0.2.0/24, 2001:db8::1', EDGEPLANE_DNS_NOTIFY: '192.0.2.53:53,[2001:db8::1]:5300' });
    assert.deepEqual(secondaries.dnsTransferAllow, ['192.0.2.0/24', '2001:db8::1']);
    assert.deepEqual(secondaries.dnsNotify, [{ host: '192.0.2.53', port: 53 }, { host: '2001:db8::1', port: 5300 }]);
  });

  test('every bad value is reported at once, naming the variable and the flag', () => {
    assert.throws(
      () =>
        loadConfig({
          EDGEPLANE_API_LISTEN: 'localhost',
          EDGEPLANE_DATABASE_URL: 'mysql://x',
          EDGEPLANE_COMPAT: 'aws',
          EDGEPLANE_LOG_LEVEL: 'loud',
          EDGEPLANE_ACCESS_TOKEN_TTL: '-5',
          EDGEPLANE_ADMIN_EMAIL: 'not-an-email',
          EDGEPLANE_ADMIN_PASSWORD: 'short',
          EDGEPLANE_JWT_SECRET: 'too-short',
          EDGEPLANE_DNS_UDP_IO: 'io_uring',
          EDGEPLANE_DNS_TRANSFER_ALLOW: '127.0.0.1,not-a-network',
          EDGEPLANE_DNS_NOTIFY: 'secondary.example:53',
          EDGEPLANE_DNS_NSID: 'two words',
          EDGEPLANE_DNS_CATALOG: 'bad..name',
          EDGEPLANE_DNS_RRL: '-1',
          EDGEPLANE_DNS_RRL_SLIP: 'two',
          EDGEPLANE_DNS_TCP_MAX_CLIENTS: '0',
          EDGEPLANE_DNS_TCP_MAX_PER_CLIENT: 'many',
          EDGEPLANE_DNS_TCP_IDLE_TIMEOUT: '0',
          EDGEPLANE_DNS_TCP_MAX_PIPELINED: '70000',
          EDGEPLANE_REDIS_URL: 'http://127.0.0.1:6379',
        }),
      (e: unknown) => {
        assert.ok(e instanceof ConfigError);
        for (const name of ['API_LISTEN', 'DATABASE_URL', 'COMPAT', 'LOG_LEVEL', 'ACCESS_TOKEN_TTL', 'ADMIN_EMAIL', 'ADMIN_PASSWORD', 'JWT_SECRET', 'DNS_UDP_IO', 'DNS_TRANSFER_ALLOW', 'DNS_NOTIFY', 'DNS_NSID', 'DNS_CATALOG', 'DNS_RRL', 'DNS_RRL_SLIP', 'DNS_TCP_MAX_CLIENTS', 'DNS_TCP_MAX_PER_CLIENT', 'DNS_TCP_IDLE_TIMEOUT', 'DNS_TCP_MAX_PIPELINED', 'REDIS_URL']) {
          assert.match(e.message, new RegExp(`EDGEPLANE_${name} \\(--`), name);
        }
        return true;
      },
    );
    assert.throws(() => loadConfig({ EDGEPLANE_API_LISTEN: '0.0.0.0:70000' }), /EDGEPLANE_API_LISTEN/);
  });

  test('DNS over TCP: caps below the open-file limit, half of it by default, at most 10,000', () => {
    const limit = openFileLimit();
    const config = loadConfig({});
    assert.equal(config.dnsTcpMaxClients, limit === undefined ? 1000 : Math.min(10_000, Math.floor(limit / 2)));
    assert.deepEqual([config.dnsTcpMaxPerClient, config.dnsTcpIdleTimeoutSeconds, config.dnsTcpMaxPipelined], [64, 10, 100]);
    assert.equal(loadConfig({ EDGEPLANE_DNS_TCP_IDLE_TIMEOUT: '1m' }).dnsTcpIdleTimeoutSeconds, 60);
    if (limit !== undefined) {
      assert.throws(() => loadConfig({ EDGEPLANE_DNS_TCP_MAX_CLIENTS: String(limit) }), /EDGEPLANE_DNS_TCP_MAX_CLIENTS \(--dns-tcp-max-clients\): \d+ is not below this process's open-file limit/);
    }
  });

  test('managed certificates: off unless a directory is given or EDGEPLANE_ACME says so; https directories only', () => {
    const fresh = loadConfig({});
    assert.equal(fresh.acme, false, 'a fresh install talks to no CA');
    assert.equal(fresh.acmeDirectory, 'https://acme-v02.api.letsencrypt.org/directory');
    assert.equal(loadConfig({ EDGEPLANE_ACME: '1' }).acme, true);
    const staging = loadConfig({ EDGEPLANE_ACME_DIRECTORY: 'https://acme-staging-v02.api.letsencrypt.org/directory', EDGEPLANE_ACME_EMAIL: 'Ops@Example.com' });
    assert.equal(staging.acme, true);
    assert.equal(staging.acmeEmail, 'ops@example.com');
    assert.equal(loadConfig({ EDGEPLANE_ACME_DIRECTORY: 'https://ca.example/dir', EDGEPLANE_ACME: '0' }).acme, false);
    assert.throws(() => loadConfig({ EDGEPLANE_ACME_DIRECTORY: 'http://ca.example/dir', EDGEPLANE_ACME_CA_FILE: '/no/such/file.pem' }), (e: Error) => {
      assert.match(e.message, /EDGEPLANE_ACME_DIRECTORY \(--acme-directory\): expected an https:\/\/ URL/);
      assert.match(e.message, /EDGEPLANE_ACME_CA_FILE \(--acme-ca-file\): cannot read/);
      return true;
    });
  });

  test('bot protection: exempt path patterns (none: nothing exempt) and the clearance lifetime', () => {
    const fresh = loadConfig({});
    assert.deepEqual([fresh.proxyBotExemptPaths, fresh.proxyBotClearanceSeconds], [['/api/*', '/.well-known/*'], 3600]);
    const set = loadConfig({ EDGEPLANE_PROXY_BOT_EXEMPT_PATHS: ' /v1/* , *.json ,', EDGEPLANE_PROXY_BOT_CLEARANCE: '12h' });
    assert.deepEqual([set.proxyBotExemptPaths, set.proxyBotClearanceSeconds], [['/v1/*', '*.json'], 43200]);
    assert.deepEqual(loadConfig({ EDGEPLANE_PROXY_BOT_EXEMPT_PATHS: 'none' }).proxyBotExemptPaths, []);
    assert.throws(() => loadConfig({ EDGEPLANE_PROXY_BOT_EXEMPT_PATHS: '/api/*,api/v2', EDGEPLANE_PROXY_BOT_CLEARANCE: '10' }), (e: Error) => {
      assert.match(e.message, /EDGEPLANE_PROXY_BOT_EXEMPT_PATHS \(--proxy-bot-exempt-paths\): "api\/v2" is not a path pattern/);
      assert.match(e.message, /EDGEPLANE_PROXY_BOT_CLEARANCE \(--proxy-bot-clearance\): expected 60 to 2592000 seconds/);
      return true;
    });
  });

  test('PostgreSQL: a request waits 5 s for a connection by default, 100 ms to 60 s', () => {
    assert.equal(loadConfig({}).databaseWaitMs, 5000);
    assert.equal(loadConfig({ EDGEPLANE_DATABASE_WAIT: '500ms' }).databaseWaitMs, 500);
    assert.equal(loadConfig({}, { 'database-wait': '30s' }).databaseWaitMs, 30_000);
    for (const bad of ['0', '50ms', '2m', 'soon']) {
      assert.throws(() => loadConfig({ EDGEPLANE_DATABASE_WAIT: bad }), new RegExp(`EDGEPLANE_DATABASE_WAIT \\(--database-wait\\): expected 100 ms to 60 s, .*got "${bad}"`));
    }
  });

  test('the tests\' faults from the environment only: a worker thread may be made to exit, never the main thread', () => {
    assert.deepEqual(loadConfig({ EDGEPLANE_TEST_FAIL_APPLY: '1:crash.test:exit,0:main.test:3' }).testApplyFaults, [
      { thread: 1, zone: 'crash.test', times: 'exit' },
      { thread: 0, zone: 'main.test', times: 3 },
    ]);
    assert.throws(() => loadConfig({ EDGEPLANE_TEST_FAIL_APPLY: '0:main.test:exit' }), /EDGEPLANE_TEST_FAIL_APPLY: "0:main.test:exit": only a worker thread/);
    assert.throws(() => loadConfig({ EDGEPLANE_TEST_FAIL_APPLY: '0:main.test:hang' }), /only a worker thread \(1 and up\) can be made to hang/);
    assert.equal(loadConfig({ EDGEPLANE_TEST_FAIL_APPLY: '2:slow.test:hang' }).testApplyFaults[0]?.times, 'hang');
    assert.equal(loadConfig({}).testThreadHeartbeat, undefined);
    assert.deepEqual(loadConfig({ EDGEPLANE_TEST_THREAD_HEARTBEAT: '400ms' }).testThreadHeartbeat, { everyMs: 100, timeoutMs: 400 });
    assert.throws(() => loadConfig({ EDGEPLANE_TEST_THREAD_HEARTBEAT: '10ms' }), /EDGEPLANE_TEST_THREAD_HEARTBEAT: expected 100 ms/);
    assert.equal(loadConfig({}).testProxyExitOn, undefined);
    assert.equal(loadConfig({ EDGEPLANE_TEST_PROXY_EXIT_ON: 'crash.example' }).testProxyExitOn, 'crash.example');
  });

  test('health check thresholds: 3 failures and 2 passes by default, 1-10; the tests\' interval from the environment only', () => {
    const fresh = loadConfig({});
    assert.deepEqual([fresh.healthcheckFall, fresh.healthcheckRise, fresh.testHealthcheckIntervalMs], [3, 2, undefined]);
    const set = loadConfig({ EDGEPLANE_HEALTHCHECK_FALL: '1', EDGEPLANE_HEALTHCHECK_RISE: '10', EDGEPLANE_TEST_HEALTHCHECK_INTERVAL: '200ms' });
    assert.deepEqual([set.healthcheckFall, set.healthcheckRise, set.testHealthcheckIntervalMs], [1, 10, 200]);
    assert.throws(() => loadConfig({ EDGEPLANE_HEALTHCHECK_FALL: '0', EDGEPLANE_HEALTHCHECK_RISE: '11', EDGEPLANE_TEST_HEALTHCHECK_INTERVAL: '1ms' }), (e: Error) => {
      assert.match(e.message, /EDGEPLANE_HEALTHCHECK_FALL \(--healthcheck-fall\): expected an integer 1-10, got "0"/);
      assert.match(e.message, /EDGEPLANE_HEALTHCHECK_RISE \(--healthcheck-rise\): expected an integer 1-10, got "11"/);
      assert.match(e.message, /EDGEPLANE_TEST_HEALTHCHECK_INTERVAL: expected 50 ms/);
      return true;
    });
  });

  test('the resolver: an address with an optional port, none, or by default the first nameserver of /etc/resolv.conf', () => {
    const fromFile = /^\s*nameserver\s+(\S+)/m.exec(fs.existsSync('/etc/resolv.conf') ? fs.readFileSync('/etc/resolv.conf', 'utf8') : '')?.[1];
    const fresh = loadConfig({});
    assert.deepEqual(fresh.resolver, fromFile === undefined || fromFile.includes('%') ? undefined : { host: fromFile, port: 53 });
    assert.equal(fresh.resolverTimeoutMs, 3000);
    assert.deepEqual(loadConfig({ EDGEPLANE_RESOLVER: '192.0.2.53' }).resolver, { host: '192.0.2.53', port: 53 });
    assert.deepEqual(loadConfig({ EDGEPLANE_RESOLVER: '192.0.2.53:5353' }).resolver, { host: '192.0.2.53', port: 5353 });
    assert.deepEqual(loadConfig({ EDGEPLANE_RESOLVER: '[2001:DB8:0::53]:53' }).resolver, { host: '2001:db8::53', port: 53 });
    assert.deepEqual(loadConfig({ EDGEPLANE_RESOLVER: '2001:db8::53' }).resolver, { host: '2001:db8::53', port: 53 });
    assert.equal(loadConfig({ EDGEPLANE_RESOLVER: 'none' }).resolver, undefined);
    assert.equal(loadConfig({ EDGEPLANE_RESOLVER_TIMEOUT: '250ms' }).resolverTimeoutMs, 250);
    assert.throws(() => loadConfig({ EDGEPLANE_RESOLVER: 'dns.example:53', EDGEPLANE_RESOLVER_TIMEOUT: '1m' }), (e: Error) => {
      assert.match(e.message, /EDGEPLANE_RESOLVER \(--resolver\): "dns.example" is not an IP address/);
      assert.match(e.message, /EDGEPLANE_RESOLVER_TIMEOUT \(--resolver-timeout\)/);
      return true;
    });
    assert.throws(() => loadConfig({ EDGEPLANE_RESOLVER: 'not an address' }), /EDGEPLANE_RESOLVER \(--resolver\): expected an IP address/);
    assert.throws(() => loadConfig({ EDGEPLANE_RESOLVER: '192.0.2.53:0' }), /port may not be 0/);
  });

  test('the process refuses to start on a bad value, with exit code 2 and a clear message', async () => {
    await assert.rejects(run(process.execPath, [mainScript, 'serve'], { env: { EDGEPLANE_COMPAT: 'aws' } }), (e: { code: number; stderr: string }) => {
      assert.equal(e.code, 2);
      assert.match(e.stderr, /EDGEPLANE_COMPAT \(--compat\): expected one of seed, gcore, got "aws"/);
      return true;
    });
    await assert.rejects(run(process.execPath, [mainScript, 'serve', '--no-such-flag']), (e: { code: number; stderr: string }) => {
      assert.match(e.stderr, /no-such-flag/);
      return true;
    });
  });

  test('--help lists every setting', async () => {
    const { stdout } = await run(process.execPath, [mainScript, '--help']);
    for (const name of ['EDGEPLANE_API_LISTEN', 'EDGEPLANE_DATA_DIR', 'EDGEPLANE_DATABASE_URL', 'EDGEPLANE_ADMIN_EMAIL', 'EDGEPLANE_ADMIN_PASSWORD', 'EDGEPLANE_COMPAT', 'EDGEPLANE_LOG_LEVEL']) {
      assert.match(stdout, new RegExp(name));
    }
  });
});
