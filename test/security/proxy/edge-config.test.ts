// The proxy edge's settings: defaults, the units they are written in, and bad values named.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError, loadConfig } from '../../../src/config.ts';
import { openFileLimit } from '../../../src/net/connection-admission.ts';

test('defaults', () => {
  const config = loadConfig({});
  assert.deepEqual(
    {
      http: config.proxyHttpProxyProtocol,
      https: config.proxyHttpsProxyProtocol,
      perClient: config.proxyMaxConnectionsPerClient,
      header: config.proxyHeaderTimeoutMs,
      idle: config.proxyIdleTimeoutMs,
      body: config.proxyBodyTimeoutMs,
      rate: config.proxyBodyMinRate,
      headerSize: config.proxyMaxHeaderSize,
      bodySize: config.proxyMaxBodySize,
      log: config.proxyAccessLog,
    },
    { http: false, https: false, perClient: 256, header: 20_000, idle: 30_000, body: 30_000, rate: 500, headerSize: 32 * 1024, bodySize: 100 * 1024 * 1024, log: true },
  );
  const limit = openFileLimit();
  assert.equal(config.proxyMaxConnections, limit === undefined ? 1000 : Math.min(50_000, Math.floor(limit / 4)));
});

test('durations in seconds or ms/s/m, sizes in bytes or k/m/g', () => {
  const config = loadConfig({
    EDGEPLANE_PROXY_HTTPS_PROXY_PROTOCOL: '1',
    EDGEPLANE_PROXY_HEADER_TIMEOUT: '250ms',
    EDGEPLANE_PROXY_IDLE_TIMEOUT: '2m',
    EDGEPLANE_PROXY_BODY_TIMEOUT: '15',
    EDGEPLANE_PROXY_MAX_HEADER_SIZE: '64K',
    EDGEPLANE_PROXY_MAX_BODY_SIZE: '0',
    EDGEPLANE_PROXY_ACCESS_LOG: '0',
    EDGEPLANE_PROXY_MAX_CONNECTIONS: '100',
  });
  assert.deepEqual(
    [config.proxyHttpsProxyProtocol, config.proxyHeaderTimeoutMs, config.proxyIdleTimeoutMs, config.proxyBodyTimeoutMs, config.proxyMaxHeaderSize, config.proxyMaxBodySize, config.proxyAccessLog, config.proxyMaxConnections],
    [true, 250, 120_000, 15_000, 64 * 1024, 0, false, 100],
  );
  assert.equal(loadConfig({ EDGEPLANE_PROXY_MAX_BODY_SIZE: '1g' }).proxyMaxBodySize, 1024 ** 3);
});

test('bad values are refused, naming the setting', () => {
  const bad = {
    EDGEPLANE_PROXY_HTTP_PROXY_PROTOCOL: 'maybe',
    EDGEPLANE_PROXY_HEADER_TIMEOUT: '10us',
    EDGEPLANE_PROXY_IDLE_TIMEOUT: '50ms',
    EDGEPLANE_PROXY_MAX_HEADER_SIZE: '100',
    EDGEPLANE_PROXY_MAX_BODY_SIZE: '1t',
    EDGEPLANE_PROXY_MAX_CONNECTIONS_PER_CLIENT: '0',
    EDGEPLANE_PROXY_BODY_MIN_RATE: '-1',
    EDGEPLANE_PROXY_MAX_CONNECTIONS: String((openFileLimit() ?? 1_000_000) + 1),
  };
  assert.throws(
    () => loadConfig(bad),
    (e: unknown) => e instanceof ConfigError && Object.keys(bad).every((name) => e.message.includes(name)),
  );
});
