// NOTIFY (RFC 1996): after a zone changes, every secondary in EDGEPLANE_DNS_NOTIFY is told over UDP,
// and asked again until it acknowledges (a response with the same ID, from the secondary's own
// address and port), at most `tries` times. The secondary then checks the SOA serial and transfers
// the zone (transfer.ts).
import { randomInt } from 'node:crypto';
import dgram from 'node:dgram';
import { isIPv6 } from 'node:net';
import type { FastifyBaseLogger } from 'fastify';
import type { ListenAddress } from '../../config.ts';
import { nameLabels, wireFromLabels } from '../wire/name.ts';
import { typeCode } from '../wire/type-codes.ts';
import { signRequest, type TsigKey } from './tsig.ts';

const tries = 3;
const waitMs = 2000;
const opcodeNotify = 4;
const flagAa = 0x0400;
const classIn = 1;

/** A NOTIFY for `zone`: the question (zone, SOA, IN), nothing else. */
function notifyMessage(zone: string, id: number): Buffer {
  const name = wireFromLabels(nameLabels(zone));
  const message = Buffer.alloc(12 + name.length + 4);
  message.writeUInt16BE(id, 0);
  message.writeUInt16BE((opcodeNotify << 11) | flagAa, 2);
  message.writeUInt16BE(1, 4);
  name.copy(message, 12);
  message.writeUInt16BE(typeCode.soa, 12 + name.length);
  message.writeUInt16BE(classIn, 14 + name.length);
  return message;
}

/** Whether `reply` acknowledges the NOTIFY with this ID: QR set, opcode NOTIFY. */
function acknowledges(reply: Buffer, id: number): boolean {
  return reply.length >= 12 && reply.readUInt16BE(0) === id && (reply.readUInt16BE(2) & 0xf800) === (0x8000 | (opcodeNotify << 11));
}

/** Tells one secondary; resolves to whether it acknowledged. */
function notifyOne(zone: string, target: ListenAddress, key: TsigKey | undefined): Promise<boolean> {
  const id = randomInt(0x10000);
  const plain = notifyMessage(zone, id);
  const message = key === undefined ? plain : signRequest(plain, key);
  const socket = dgram.createSocket(isIPv6(target.host) ? 'udp6' : 'udp4');
  return new Promise((resolve) => {
    let attempt = 0;
    let timer: NodeJS.Timeout | undefined;
    const done = (acknowledged: boolean) => {
      clearTimeout(timer);
      socket.close();
      resolve(acknowledged);
    };
    const send = () => {
      if (attempt++ >= tries) return done(false);
      socket.send(message);
      timer = setTimeout(send, waitMs);
    };
    socket.on('message', (reply) => {
      if (acknowledges(reply, id)) done(true);
    });
    // An ICMP error (nobody listening) is one more unanswered try.
    socket.on('error', () => undefined);
    // Connected (to an IP address: the configuration takes nothing else), the kernel passes on
    // datagrams from the secondary's address and port only, so another host that learns the ID (on
    // the path, or guessing among 65,536) cannot answer for it and stop the retries.
    socket.connect(target.port, target.host, send);
  });
}

/** `key`: the TSIG key NOTIFY is signed with (the first of EDGEPLANE_DNS_TSIG_KEYS), if any. */
export function notifySecondaries(zone: string, targets: readonly ListenAddress[], key: TsigKey | undefined, logger: FastifyBaseLogger): void {
  for (const target of targets) {
    const peer = `${target.host}:${String(target.port)}`;
    void notifyOne(zone, target, key).then((acknowledged) => {
      if (acknowledged) logger.debug({ zone, peer }, 'NOTIFY acknowledged');
      else logger.warn({ zone, peer }, `NOTIFY for ${zone} was not acknowledged by ${peer} after ${String(tries)} tries`);
    });
  }
}
