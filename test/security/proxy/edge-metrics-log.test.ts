// The proxy's per-resource metrics as Prometheus reads them, and the access log's lines: their
// shape, what is never in them, and a destination that cannot keep up costing dropped lines
// (counted), not memory or time.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import { Registry } from 'prom-client';
import { AccessLog, fdDestination, streamDestination, type AccessEntry, type AccessLogDestination } from '../../../src/security/proxy/access-log.ts';
import { proxyMetrics } from '../../../src/security/proxy/proxy-metrics.ts';
import { metricValue } from '../../support/proxy-edge.ts';

test('requests by resource and outcome, origin latency by resource, bounded labels', async () => {
  const registry = new Registry();
  const metrics = proxyMetrics(registry);
  metrics.request(7, 'passed', 0.003);
  metrics.request(7, 'passed', 0.2);
  metrics.request(7, 'origin_error', 30);
  metrics.request(7, 'geo');
  metrics.request(8, 'rate_limit');
  metrics.request(undefined, 'unknown_host');
  metrics.request(8, 'Host: evil.example\n');
  const text = await registry.metrics();
  const value = (series: string) => metricValue(text, series);
  assert.equal(value('edgeplane_proxy_requests_total{resource="7",outcome="passed"}'), 2);
  assert.equal(value('edgeplane_proxy_requests_total{resource="7",outcome="origin_error"}'), 1);
  assert.equal(value('edgeplane_proxy_requests_total{resource="7",outcome="geo"}'), 1);
  assert.equal(value('edgeplane_proxy_requests_total{resource="8",outcome="rate_limit"}'), 1);
  assert.equal(value('edgeplane_proxy_requests_total{resource="none",outcome="unknown_host"}'), 1);
  assert.equal(value('edgeplane_proxy_requests_total{resource="8",outcome="other"}'), 1, 'an outcome that is not a reason name is not a label');
  assert.doesNotMatch(text, /evil/);
  assert.equal(value('edgeplane_proxy_origin_seconds_bucket{le="0.005",resource="7"}'), 1);
  assert.equal(value('edgeplane_proxy_origin_seconds_bucket{le="0.25",resource="7"}'), 2);
  assert.equal(value('edgeplane_proxy_origin_seconds_bucket{le="60",resource="7"}'), 3);
  assert.equal(value('edgeplane_proxy_origin_seconds_bucket{le="+Inf",resource="7"}'), 3);
  assert.equal(value('edgeplane_proxy_origin_seconds_count{resource="7"}'), 3);
  assert.ok(Math.abs(value('edgeplane_proxy_origin_seconds_sum{resource="7"}') - 30.203) < 1e-9);
  assert.doesNotMatch(text, /origin_seconds_\w+\{[^}]*resource="8"/, 'no latency series for a resource never forwarded');
  assert.match(text, /# TYPE edgeplane_proxy_origin_seconds histogram/);
  // A resource that goes takes its series along.
  metrics.forget(7);
  assert.doesNotMatch(await registry.metrics(), /resource="7"/);
});

test('the figures of several threads sum (the role aggregates the workers\' registries)', async () => {
  const [one, two] = [new Registry(), new Registry()];
  proxyMetrics(one).request(3, 'passed', 0.01);
  proxyMetrics(two).request(3, 'passed', 0.01);
  const { AggregatorRegistry } = await import('prom-client');
  const summed = await AggregatorRegistry.aggregate([await one.getMetricsAsJSON(), await two.getMetricsAsJSON()]).metrics();
  assert.equal(metricValue(summed, 'edgeplane_proxy_requests_total{resource="3",outcome="passed"}'), 2);
  assert.equal(metricValue(summed, 'edgeplane_proxy_origin_seconds_count{resource="3"}'), 2);
});

const entry: AccessEntry = {
  resource: 12,
  host: 'shop.example',
  method: 'POST',
  path: '/cart/add',
  status: 201,
  outcome: 'passed',
  client: '2001:db8::1',
  httpVersion: '1.1',
  secure: true,
  durationMs: 12.34567,
  originMs: 10.5,
  bytesSent: 321,
  userAgent: 'curl/8.5',
};

function collected(): { destination: AccessLogDestination; lines: () => Record<string, unknown>[]; pieces: string[] } {
  const stream = new PassThrough();
  const pieces: string[] = [];
  stream.on('data', (chunk: Buffer) => pieces.push(chunk.toString()));
  return {
    destination: streamDestination(stream),
    pieces,
    lines: () =>
      pieces
        .join('')
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}

test('one JSON line per request, in the service log\'s shape', async () => {
  const out = collected();
  const log = new AccessLog(out.destination, { maxPending: 1 << 20, dropped: () => assert.fail('nothing dropped') });
  log.write(entry);
  log.write({ ...entry, resource: undefined, status: 404, outcome: 'unknown_host', originMs: undefined, bytesSent: undefined, userAgent: undefined, httpVersion: '2.0', secure: false });
  await log.flushed();
  const [first = {}, second] = out.lines();
  assert.deepEqual(Object.keys(first), ['level', 'time', 'msg', 'resource', 'host', 'method', 'path', 'status', 'outcome', 'client', 'http', 'tls', 'duration_ms', 'origin_ms', 'bytes', 'user_agent']);
  assert.ok(!Number.isNaN(Date.parse(String(first['time']))));
  assert.deepEqual(
    { ...first, time: undefined },
    { level: 30, time: undefined, msg: 'access', resource: 12, host: 'shop.example', method: 'POST', path: '/cart/add', status: 201, outcome: 'passed', client: '2001:db8::1', http: '1.1', tls: true, duration_ms: 12.346, origin_ms: 10.5, bytes: 321, user_agent: 'curl/8.5' },
  );
  assert.deepEqual({ ...second, time: undefined }, { level: 30, time: undefined, msg: 'access', resource: null, host: 'shop.example', method: 'POST', path: '/cart/add', status: 404, outcome: 'unknown_host', client: '2001:db8::1', http: '2', tls: false, duration_ms: 12.346 });
});

test('what a client chose is bounded and escaped: a line stays one line of ASCII', async () => {
  const out = collected();
  const log = new AccessLog(out.destination, { maxPending: 1 << 20, dropped: () => undefined });
  log.write({ ...entry, host: 'x'.repeat(1000), path: `/a"b\\c\n${'p'.repeat(5000)}`, userAgent: 'Mozilla/5.0 \u00e9\u4e2d\ud83d\ude00\u0000' });
  await log.flushed();
  const text = out.pieces.join('');
  assert.equal(text.split('\n').length, 2, 'one line');
  assert.match(text, /^[\x20-\x7e]*\n$/, 'printable ASCII');
  const [line] = out.lines();
  assert.equal(String(line?.['host']).length, 255);
  assert.equal(String(line?.['path']).length, 1024);
  assert.ok(String(line?.['path']).startsWith('/a"b\\c\n'));
  assert.equal(line?.['user_agent'], 'Mozilla/5.0 \u00e9\u4e2d\ud83d\ude00\u0000');
});

test('writes hold whole lines, at most a piece each: 4096 bytes to a pipe (lines of several threads never mix), more to a file', async () => {
  const pieces: string[] = [];
  const pipeLike: AccessLogDestination = { write: (piece, done) => setImmediate(() => (pieces.push(piece), done())), maxPiece: 4096 };
  const log = new AccessLog(pipeLike, { maxPending: 1 << 20, dropped: () => undefined });
  for (let i = 0; i < 500; i++) log.write({ ...entry, path: `/item/${String(i)}` });
  await log.flushed();
  assert.ok(pieces.length > 1);
  for (const piece of pieces) {
    assert.ok(piece.length <= 4096, String(piece.length));
    assert.ok(piece.endsWith('\n'));
  }
  const lines = pieces.join('').split('\n').filter((l) => l !== '');
  assert.deepEqual(
    lines.map((l) => (JSON.parse(l) as { path: string }).path),
    Array.from({ length: 500 }, (_, i) => `/item/${String(i)}`),
  );

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'edgeplane-access-'));
  try {
    execFileSync('mkfifo', [path.join(dir, 'fifo')]);
    // Read-write: opening a FIFO so does not wait for a reader.
    const fifo = fs.openSync(path.join(dir, 'fifo'), 'r+');
    const file = fs.openSync(path.join(dir, 'access.log'), 'a');
    assert.equal(fdDestination(fifo).maxPiece, 4096);
    assert.equal(fdDestination(file).maxPiece, 64 * 1024);
    const toFile = new AccessLog(fdDestination(file), { maxPending: 1 << 20, dropped: () => undefined });
    for (let i = 0; i < 500; i++) toFile.write({ ...entry, path: `/file/${String(i)}` });
    await toFile.flushed();
    const written = fs.readFileSync(path.join(dir, 'access.log'), 'utf8').split('\n').filter((l) => l !== '');
    assert.equal(written.length, 500);
    fs.closeSync(fifo);
    fs.closeSync(file);
  } finally {
    fs.rmSync(dir, { recursive: true });
  }
});

test('a destination that does not keep up: lines beyond what may wait are dropped and counted, writing never blocks', async () => {
  const writes: (() => void)[] = [];
  const written: string[] = [];
  const stalled: AccessLogDestination = {
    write: (piece, done) => {
      written.push(piece);
      writes.push(() => done());
    },
    maxPiece: 4096,
  };
  let dropped = 0;
  const log = new AccessLog(stalled, { maxPending: 10_000, dropped: (n) => (dropped += n) });
  const started = performance.now();
  for (let i = 0; i < 10_000; i++) log.write(entry);
  assert.ok(performance.now() - started < 500, 'writing a line is cheap whatever the destination does');
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(writes.length, 1, 'one write in flight at a time');
  // The destination catches up: what waited is written, and the log is idle again.
  await completing(writes, log.flushed());
  const lines = written.join('').split('\n').filter((l) => l !== '');
  const lineBytes = (lines[0]?.length ?? 0) + 1;
  // What fitted in 10,000 waiting bytes, and the piece taken for the write in flight.
  assert.ok(lines.length >= Math.floor(10_000 / lineBytes) && lines.length <= Math.floor((10_000 + 4096) / lineBytes) + 1, String(lines.length));
  assert.equal(dropped, 10_000 - lines.length);
  // Room again: a new line is written.
  log.write(entry);
  await completing(writes, log.flushed());
  assert.equal(written.join('').split('\n').filter((l) => l !== '').length, lines.length + 1);
});

/** Completes the destination's writes, one at a time as they come, until `idle` resolves. */
async function completing(writes: (() => void)[], idle: Promise<void>): Promise<void> {
  const state = { done: false };
  void idle.then(() => (state.done = true));
  while (!state.done) {
    writes.shift()?.();
    await new Promise((resolve) => setImmediate(resolve));
  }
}
