// One health check of one address: TCP connects, HTTP(S) requests and reads the status (and body),
// UDP sends a datagram and listens, ICMP runs the system's ping. Each resolves to up or down, never
// rejects, and gives up after the check's timeout.
import { execFile } from 'node:child_process';
import dgram from 'node:dgram';
import { http } from '../../net/node-http.ts';
import https from 'node:https';
import net from 'node:net';
import type { Check } from './failover.ts';

/** At most this much of a body or reply is matched against the check's regexp. */
const maxBody = 64 * 1024;

function tcp(address: string, port: number, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: address, port, timeout: timeoutMs });
    const done = (up: boolean) => {
      socket.destroy();
      resolve(up);
    };
    socket.once('connect', () => done(true));
    socket.once('timeout', () => done(false));
    socket.once('error', () => done(false));
  });
}

function httpCheck(address: string, check: Check): Promise<boolean> {
  const { method, path, tls, status, host } = check.http;
  const options = {
    host: address,
    port: check.port,
    method,
    path,
    headers: { host: host ?? (net.isIPv6(address) ? `[${address}]` : address), 'user-agent': 'edgeplane-healthcheck' },
    timeout: check.timeoutMs,
    agent: false,
  } as const;
  return new Promise((resolve) => {
    let settled = false;
    const done = (up: boolean) => {
      if (settled) return;
      settled = true;
      request.destroy();
      resolve(up);
    };
    // The check asks whether the origin answers as expected, not whether its certificate is valid.
    const request = tls
      ? https.request({ ...options, servername: host !== undefined && !net.isIP(host) ? host : undefined, rejectUnauthorized: false })
      : http.request(options);
    request.once('timeout', () => done(false));
    request.once('error', () => done(false));
    request.once('response', (response) => {
      if (response.statusCode !== status) return done(false);
      const pattern = check.regexp;
      if (pattern === undefined) return done(true);
      let body = '';
      response.setEncoding('latin1');
      response.on('data', (chunk: string) => {
        body += chunk;
        if (body.length >= maxBody) done(pattern.test(body.slice(0, maxBody)));
      });
      response.once('end', () => done(pattern.test(body)));
      response.once('error', () => done(false));
    });
    request.end();
  });
}

/**
 * UDP has no handshake: a closed port answers with ICMP unreachable, which a connected socket
 * reports as an error. Without a regexp, no such error within the timeout counts as up; with one, a
 * reply must come and match it.
 */
function udp(address: string, port: number, check: Check): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = dgram.createSocket(net.isIPv6(address) ? 'udp6' : 'udp4');
    let timer: NodeJS.Timeout | undefined;
    const done = (up: boolean) => {
      clearTimeout(timer);
      socket.close();
      resolve(up);
    };
    socket.once('error', () => done(false));
    socket.on('message', (reply) => done(check.regexp === undefined || check.regexp.test(reply.subarray(0, maxBody).toString('latin1'))));
    socket.connect(port, address, () => {
      timer = setTimeout(() => done(check.regexp === undefined), check.timeoutMs);
      socket.send(Buffer.from('edgeplane-healthcheck\n'));
    });
  });
}

/** Undefined when the machine has no ping: ICMP checks then cannot run (checker.ts). */
export function icmp(address: string, timeoutMs: number): Promise<boolean | undefined> {
  const seconds = String(Math.max(1, Math.round(timeoutMs / 1000)));
  return new Promise((resolve) => {
    execFile('ping', ['-n', '-q', '-c', '1', '-W', seconds, address], { timeout: timeoutMs + 1000 }, (error) => {
      if (error === null) resolve(true);
      else resolve((error as NodeJS.ErrnoException).code === 'ENOENT' ? undefined : false);
    });
  });
}

/** Whether `address` passes `check`; undefined when this machine cannot run it. */
export function probe(address: string, check: Check): Promise<boolean | undefined> {
  switch (check.protocol) {
    case 'TCP':
      return tcp(address, check.port ?? 0, check.timeoutMs);
    case 'HTTP':
      return httpCheck(address, check);
    case 'UDP':
      return udp(address, check.port ?? 0, check);
    case 'ICMP':
      return icmp(address, check.timeoutMs);
  }
}
