// Bodies stream through forward() both ways without being held, and either side going away ends
// the other: a client leaving aborts the origin request (while waiting, uploading or downloading),
// an origin failing in mid-answer cuts the client off.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import http from 'node:http';
import { after, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { originSet, startOrigin, startProxy, type Origin, type Proxy } from './origins-harness.ts';

const cleanup: Array<Origin | Proxy> = [];
after(async () => {
  for (const item of cleanup) await ('stop' in item ? item.stop().catch(() => undefined) : item.close());
});

async function setup(handler: (req: http.IncomingMessage, res: http.ServerResponse) => void): Promise<{ origin: Origin; proxy: Proxy }> {
  const origin = await startOrigin('origin', handler);
  const proxy = await startProxy(originSet([{ port: origin.port }]));
  cleanup.push(origin, proxy);
  return { origin, proxy };
}

const MiB = 1024 * 1024;
const chunk = Buffer.alloc(64 * 1024, 0x61);

/** Writes `total` bytes of `chunk` to a stream at its pace; resolves when all are written. */
async function pump(stream: NodeJS.WritableStream, total: number, progress: { written: number }): Promise<void> {
  while (progress.written < total) {
    progress.written += chunk.length;
    if (!stream.write(chunk)) await once(stream, 'drain');
  }
  stream.end();
}

describe('streaming', () => {
  test('64 MiB up and 64 MiB down: each side has the first bytes long before the other has sent them all', async () => {
    const total = 64 * MiB;
    const upload = { written: 0 };
    const download = { written: 0 };
    let uploadedWhenOriginStarted = -1;
    let received = 0;
    const { proxy } = await setup((req, res) => {
      req.on('data', (data: Buffer) => {
        if (received === 0) uploadedWhenOriginStarted = upload.written;
        received += data.length;
      });
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        void pump(res, total, download);
      });
    });
    const result = await new Promise<{ status: number; bytes: number; downloadedWhenClientStarted: number }>((resolve, reject) => {
      const request = http.request(`${proxy.url}/big`, { method: 'POST', headers: { host: 'site.example' }, agent: false }, (response) => {
        let bytes = 0;
        let downloadedWhenClientStarted = -1;
        response.on('data', (data: Buffer) => {
          if (bytes === 0) downloadedWhenClientStarted = download.written;
          bytes += data.length;
        });
        response.on('end', () => resolve({ status: response.statusCode ?? 0, bytes, downloadedWhenClientStarted }));
        response.on('error', reject);
      });
      request.on('error', reject);
      void pump(request, total, upload);
    });
    assert.equal(result.status, 200);
    assert.equal(received, total);
    assert.equal(result.bytes, total);
    assert.ok(uploadedWhenOriginStarted < total / 4, `the origin had its first bytes after ${String(uploadedWhenOriginStarted)} were sent`);
    assert.ok(result.downloadedWhenClientStarted < total / 4, `the client had its first bytes after ${String(result.downloadedWhenClientStarted)} were written`);
  });

  test('a client that stops reading stops the origin, and an origin that stops reading stops the client', async () => {
    const total = 64 * MiB;
    const download = { written: 0 };
    const upload = { written: 0 };
    const originReading = Promise.withResolvers<http.IncomingMessage>();
    const { proxy } = await setup((req, res) => {
      if (req.url === '/up') {
        req.once('data', () => {
          req.pause();
          originReading.resolve(req);
        });
        req.on('end', () => res.end(String(upload.written)));
        return;
      }
      res.writeHead(200);
      void pump(res, total, download);
    });
    const response = await new Promise<http.IncomingMessage>((resolve) => http.get(`${proxy.url}/down`, { headers: { host: 'site.example' }, agent: false }, resolve));
    response.pause();
    await sleep(300);
    const heldDown = download.written;
    let bytes = 0;
    response.on('data', (data: Buffer) => (bytes += data.length)).resume();
    await once(response, 'end');
    assert.equal(bytes, total);

    const request = http.request(`${proxy.url}/up`, { method: 'POST', headers: { host: 'site.example' }, agent: false });
    const answered = once(request, 'response') as Promise<[http.IncomingMessage]>;
    const pumping = pump(request, total, upload);
    const req = await originReading.promise;
    await sleep(300);
    const heldUp = upload.written;
    req.resume();
    await pumping;
    const [answer] = await answered;
    answer.resume();
    assert.equal(answer.statusCode, 200);
    // What the sockets' kernel and stream buffers on the way hold, far from 64 MiB.
    assert.ok(heldDown < 24 * MiB, `the origin wrote ${String(heldDown / MiB)} MiB while the client read nothing`);
    assert.ok(heldUp < 24 * MiB, `the client sent ${String(heldUp / MiB)} MiB while the origin read nothing`);
  });
});

describe('either side going away', () => {
  test('a client leaving while the origin thinks aborts the origin request', async () => {
    let originClosed: Promise<boolean> | undefined;
    const arrived = Promise.withResolvers<undefined>();
    const { proxy } = await setup((req, res) => {
      originClosed = once(res, 'close').then(() => res.writableFinished);
      arrived.resolve(undefined);
    });
    const request = http.request(`${proxy.url}/slow`, { headers: { host: 'site.example' }, agent: false });
    request.on('error', () => undefined);
    request.end();
    await arrived.promise;
    request.destroy();
    assert.equal(await originClosed, false, 'the origin saw its request go before answering');
    await sleep(20);
    assert.deepEqual(proxy.results.map((r) => [r.outcome, r.status]), [['client_closed', 499]]);
  });

  test('a client gone before its request is forwarded costs the origin nothing', async () => {
    const { origin, proxy } = await setup((_req, res) => res.end('late'));
    const request = http.request(`${proxy.url}/`, { headers: { host: 'site.example', 'x-test-delay': '100' }, agent: false });
    request.on('error', () => undefined);
    request.end();
    await sleep(20);
    request.destroy();
    for (let i = 0; i < 100 && proxy.results.length < 1; i++) await sleep(10);
    assert.deepEqual(proxy.results.map((r) => [r.outcome, r.status]), [['client_closed', 499]]);
    assert.equal(origin.seen.length, 0);
  });

  test('a client leaving in mid-upload or mid-download ends the origin\'s side', async () => {
    const upload = { written: 0 };
    const uploadSeen = Promise.withResolvers<string>();
    const { proxy } = await setup((req, res) => {
      if (req.url === '/up') {
        req.on('data', () => undefined);
        req.on('end', () => uploadSeen.resolve('end'));
        req.on('close', () => uploadSeen.resolve(req.complete ? 'complete' : 'aborted'));
        return;
      }
      res.writeHead(200);
      const timer = setInterval(() => res.write(chunk), 5);
      res.on('close', () => clearInterval(timer));
    });
    const up = http.request(`${proxy.url}/up`, { method: 'PUT', headers: { host: 'site.example' }, agent: false });
    up.on('error', () => undefined);
    const pumping = pump(up, 64 * MiB, upload);
    while (upload.written < 2 * MiB) await sleep(5);
    up.destroy();
    await pumping.catch(() => undefined);
    assert.equal(await uploadSeen.promise, 'aborted');

    const downloading = new Promise<void>((resolve) => {
      const down = http.request(`${proxy.url}/down`, { headers: { host: 'site.example' }, agent: false }, (response) => {
        response.once('data', () => {
          down.destroy();
          resolve();
        });
      });
      down.on('error', () => undefined);
      down.end();
    });
    await downloading;
    for (let i = 0; i < 100 && proxy.results.length < 2; i++) await sleep(10);
    assert.deepEqual(proxy.results.map((r) => r.outcome), ['client_closed', 'client_closed']);
  });

  test('an origin failing in mid-answer cuts the client off instead of ending the answer', async () => {
    const { proxy } = await setup((_req, res) => {
      res.writeHead(200, { 'content-length': String(10 * chunk.length) });
      res.write(chunk);
      setTimeout(() => res.destroy(), 20);
    });
    const outcome = await new Promise<string>((resolve) => {
      const request = http.get(`${proxy.url}/`, { headers: { host: 'site.example' }, agent: false }, (response) => {
        response.on('data', () => undefined);
        response.on('end', () => resolve('end'));
        response.on('error', () => resolve('error'));
        response.on('aborted', () => resolve('aborted'));
      });
      request.on('error', () => resolve('error'));
    });
    assert.notEqual(outcome, 'end');
    for (let i = 0; i < 100 && proxy.results.length < 1; i++) await sleep(10);
    assert.deepEqual(proxy.results.map((r) => [r.outcome, r.status]), [['origin_error', 200]]);
  });
});
