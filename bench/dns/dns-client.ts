// A minimal UDP client for setup: readiness (the zone's SOA answered) and comparing the servers'
// answers before measuring. dnsperf does the measured sending.
import dgram from 'node:dgram';
import packet from 'dns-packet';
import { sleep } from '../api/server.ts';

/** Sends one message and resolves with the decoded reply, or undefined after `timeoutMs`. */
export function ask(port: number, message: Buffer, timeoutMs = 1000): Promise<packet.DecodedPacket | undefined> {
  return new Promise((resolve) => {
    const socket = dgram.createSocket('udp4');
    const done = (reply: packet.DecodedPacket | undefined) => {
      clearTimeout(timer);
      socket.close();
      resolve(reply);
    };
    const timer = setTimeout(() => done(undefined), timeoutMs);
    socket.on('error', () => done(undefined));
    socket.on('message', (data) => {
      try {
        done(packet.decode(data));
      } catch {
        done(undefined);
      }
    });
    socket.send(message, port, '127.0.0.1');
  });
}

const rcodeNames: Record<number, string> = { 0: 'NOERROR', 1: 'FORMERR', 2: 'SERVFAIL', 3: 'NXDOMAIN', 4: 'NOTIMP', 5: 'REFUSED' };

/** The reply's RCODE by name (dns-packet decodes it, its type declarations leave it out). */
export function rcodeOf(reply: packet.DecodedPacket): string {
  const code = (reply.flags ?? 0) & 0xf;
  return rcodeNames[code] ?? `RCODE${code}`;
}

export function soaQuery(zone: string): Buffer {
  return packet.encode({ id: 4242, type: 'query', flags: 0, questions: [{ name: zone, type: 'SOA', class: 'IN' }] });
}

/** True when the server answers the zone's SOA authoritatively (the zone is loaded). */
export async function answersSoa(port: number, zone: string, timeoutMs = 200): Promise<boolean> {
  const reply = await ask(port, soaQuery(zone), timeoutMs);
  return reply !== undefined && rcodeOf(reply) === 'NOERROR' && (reply.answers ?? []).some((a) => a.type === 'SOA');
}

/**
 * Polls the SOA every `intervalMs` until it is answered; resolves with the time it was (Date.now()),
 * or throws when `hasExited` says the process died or `timeoutMs` passed.
 */
export async function waitForSoa(port: number, zone: string, hasExited: () => boolean, timeoutMs: number, intervalMs = 20): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (hasExited()) throw new Error('the process exited');
    if (await answersSoa(port, zone)) return Date.now();
    await sleep(intervalMs);
  }
  throw new Error(`no SOA answer for ${zone} within ${timeoutMs / 1000} s`);
}

