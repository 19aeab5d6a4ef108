// What the service answered 2xx for survives a restart and kill -9; SIGTERM drains in-flight work.
// Signals and exit codes: the service runs as a process of its own.
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { engines } from '../support/engines.ts';
import { apiKey, bearer, call, login } from '../support/http.ts';
import { adminEmail, adminPassword, startService, type Service } from '../support/service.ts';

for (const engine of engines()) {
  describe(`persistence and shutdown (${engine})`, () => {
    let service: Service;
    before(async () => {
      service = await startService({ engine, process: true });
    });
    after(() => service.dispose());

    test('accounts, users, tokens and access tokens stay valid across a restart and a kill -9', async () => {
      const pair = await login(service.url, adminEmail, adminPassword);
      const auth = bearer(pair.access);
      const me = await call(service.url, 'GET', '/iam/clients/me', { auth });
      const user = await call(service.url, 'POST', '/iam/users', { auth, body: { email: 'durable@example.com', password: 'durable pw 1' } });
      assert.equal(user.status, 201);
      const token = await call(service.url, 'POST', `/iam/v2/clients/${me.body.id}/tokens`, { auth, body: { name: 'durable' } });
      assert.equal(token.status, 201);
      // The last write was answered; kill the process with no chance to flush anything.
      assert.equal(await service.stop('SIGKILL'), 'SIGKILL');

      service = await service.restart();
      assert.equal((await call(service.url, 'GET', '/iam/clients/me', { auth: apiKey(token.body.token) })).status, 200);
      assert.equal((await call(service.url, 'GET', '/iam/clients/me', { auth })).status, 200, 'the signing key survived');
      await login(service.url, 'durable@example.com', 'durable pw 1');
      assert.equal((await call(service.url, 'POST', '/iam/auth/jwt/refresh', { body: { refresh: pair.refresh } })).status, 200);

      assert.equal(await service.stop('SIGTERM'), 0);
      service = await service.restart();
      assert.equal((await call(service.url, 'GET', '/iam/users', { auth: apiKey(token.body.token) })).body.length, 2);
      // First start only: a restart does not announce a new administrator.
      assert.doesNotMatch(service.output(), /created the first administrator/);
    });

    test('SIGTERM lets an in-flight request finish, then exits 0', async () => {
      const { port } = new URL(service.url);
      const body = JSON.stringify({ username: adminEmail, password: adminPassword });
      const socket = net.connect(Number(port), '127.0.0.1');
      await new Promise((resolve) => socket.once('connect', resolve));
      let answer = '';
      socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
      const closed = new Promise((resolve) => socket.once('close', resolve));
      // Headers and half the body: the request is in flight when the signal arrives.
      socket.write(`POST /iam/auth/jwt/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body.slice(0, 10)}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
      const exited = service.stop('SIGTERM');
      await new Promise((resolve) => setTimeout(resolve, 200));
      socket.write(body.slice(10));
      await closed;
      assert.match(answer, /^HTTP\/1\.1 200 /);
      assert.match(answer, /"access":"/);
      assert.equal(await exited, 0);
      assert.match(service.output(), /"msg":"shutting down"/);
      service = await service.restart();
    });
  });
}
