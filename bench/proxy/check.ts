// Before measuring, each proxy is asked a few requests whose answers the resources determine: a
// proxy answering something else (an error page, the wrong origin, no certificate) would otherwise
// look fast. Client addresses other than 127.0.0.1 exercise the lists (loopback is never geo-checked,
// so countries cannot be checked from here).
import { X509Certificate } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import tls, { TLSSocket } from 'node:tls';
import type { Certificate } from './certificate.ts';
import { originBodies } from './nginx.ts';
import { checkAddresses, type BenchResources } from './resources.ts';
import type { ProxyServer } from './server.ts';

interface Answer {
  status: number;
  body: string;
  /** SHA-256 fingerprint of the certificate the proxy presented (HTTPS). */
  fingerprint: string | undefined;
}

function ask(server: ProxyServer, host: string, tls: boolean, localAddress = '127.0.0.1'): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const options = { host: '127.0.0.1', port: tls ? server.httpsPort : server.httpPort, path: '/', localAddress, headers: { host }, timeout: 5000, agent: false as const };
    const onResponse = (response: http.IncomingMessage) => {
      const socket = response.socket;
      const fingerprint = socket instanceof TLSSocket ? socket.getPeerCertificate().fingerprint256 : undefined;
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body, fingerprint }));
    };
    const request = tls ? https.get({ ...options, servername: host, rejectUnauthorized: false }, onResponse) : http.get(options, onResponse);
    request.on('timeout', () => request.destroy(new Error('no answer in 5 s')));
    request.on('error', reject);
  });
}

/**
 * Whether the proxy closes a TLS connection after answering a request that asks for it (HTTP/1.1
 * `Connection: close`) or does not ask to keep it (HTTP/1.0): the connection-per-request scenarios
 * depend on it. A proxy that keeps the connection makes ab wait for the close until it times out,
 * and wrk keep the connection open, measuring keep-alive under a new-connection title.
 */
function closesAfterAnswer(server: ProxyServer, host: string, version: '1.0' | '1.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = tls.connect({ host: '127.0.0.1', port: server.httpsPort, servername: host, rejectUnauthorized: false }, () => {
      socket.write(`GET / HTTP/${version}\r\nHost: ${host}\r\n${version === '1.1' ? 'Connection: close\r\n' : ''}\r\n`);
    });
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(false);
    }, 2000);
    socket.resume();
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

export interface CheckResult {
  problems: string[];
  /** Whether the proxy closes the connection after an HTTP/1.0 answer (ab's requests), and after `Connection: close` (wrk's). */
  closesHttp10: boolean;
  closesOnRequest: boolean;
  /** How 40 requests to the weighted resource spread over its origins (weights 3, 1 and a backup). */
  spread: string;
}

export async function checkProxy(server: ProxyServer, resources: BenchResources, cert: Certificate): Promise<CheckResult> {
  const problems: string[] = [];
  const expectBody = async (what: string, answer: Promise<Answer>, status: number, body?: string) => {
    try {
      const a = await answer;
      if (a.status !== status || (body !== undefined && a.body !== body)) problems.push(`${what}: ${a.status} ${JSON.stringify(a.body.slice(0, 80))}, expected ${status}${body === undefined ? '' : ` ${JSON.stringify(body)}`}`);
      return a;
    } catch (e) {
      problems.push(`${what}: ${e instanceof Error ? e.message : String(e)}`);
      return undefined;
    }
  };
  const { plain, rules } = resources;
  await expectBody(`${plain.name} over HTTP`, ask(server, plain.name, false), 200, originBodies.primary);
  const secure = await expectBody(`${plain.name} over HTTPS`, ask(server, plain.name, true), 200, originBodies.primary);
  const expected = new X509Certificate(cert.cert).fingerprint256;
  if (secure !== undefined && secure.fingerprint !== expected) problems.push(`${plain.name} over HTTPS: certificate ${secure.fingerprint ?? 'none'}, expected ${expected}`);
  await expectBody(`${rules.name} from blacklisted ${checkAddresses.blacklisted}`, ask(server, rules.name, false, checkAddresses.blacklisted), 403);
  await expectBody(`${rules.name} from whitelisted and blacklisted ${checkAddresses.whitelisted}`, ask(server, rules.name, false, checkAddresses.whitelisted), 200);

  const counts = new Map<string, number>();
  for (let i = 0; i < 40; i++) {
    const a = await expectBody(`${rules.name} over HTTP`, ask(server, rules.name, false), 200);
    if (a !== undefined) counts.set(a.body.trim(), (counts.get(a.body.trim()) ?? 0) + 1);
  }
  const spread = ['primary', 'secondary', 'backup'].map((o) => `${o} ${counts.get(originBodies[o as keyof typeof originBodies].trim()) ?? 0}`).join(', ');
  if ((counts.get(originBodies.backup.trim()) ?? 0) > 0) problems.push(`${rules.name}: the backup origin answered while the primaries were up (${spread})`);
  const closesHttp10 = await closesAfterAnswer(server, plain.name, '1.0');
  if (!closesHttp10) problems.push('an HTTP/1.0 request over TLS: the connection stays open after the answer (ab cannot measure the proxy)');
  const closesOnRequest = await closesAfterAnswer(server, plain.name, '1.1');
  if (!closesOnRequest) problems.push('Connection: close over TLS: the connection stays open after the answer (wrk would measure keep-alive)');
  return { problems: [...new Set(problems)], spread, closesHttp10, closesOnRequest };
}
