// A DNS client for the tests: queries built and decoded with dns-packet (an implementation we did
// not write), sent over real UDP and TCP.
import dgram from 'node:dgram';
import net from 'node:net';
import packet from 'dns-packet';

export interface QueryOptions {
  id?: number;
  /** Adds an OPT record (EDNS) with this payload size. */
  udpSize?: number;
  dnssecOk?: boolean;
  /** EDNS Client Subnet: address and source prefix length. */
  subnet?: { address: string; prefix: number };
  recursionDesired?: boolean;
}

export function buildQuery(name: string, type: string, options: QueryOptions = {}): Buffer {
  const edns = options.udpSize !== undefined || options.dnssecOk === true || options.subnet !== undefined;
  return packet.encode({
    type: 'query',
    id: options.id ?? Math.floor(Math.random() * 65535),
    flags: options.recursionDesired === true ? packet.RECURSION_DESIRED : 0,
    questions: [{ name, type: type as packet.RecordType, class: 'IN' }],
    additionals: edns
      ? [
          {
            type: 'OPT',
            name: '.',
            udpPayloadSize: options.udpSize ?? 1232,
            flags: options.dnssecOk === true ? packet.DNSSEC_OK : 0,
            options: options.subnet
              ? [{ code: 'CLIENT_SUBNET', family: options.subnet.address.includes(':') ? 2 : 1, sourcePrefixLength: options.subnet.prefix, scopePrefixLength: 0, ip: options.subnet.address }]
              : [],
          } as unknown as packet.Answer,
        ]
      : [],
  });
}

export function udpExchange(port: number, message: Buffer, timeoutMs = 2000, host = '127.0.0.1'): Promise<Buffer> {
  const socket = dgram.createSocket('udp4');
  return new Promise<Buffer>((resolve, reject) => {
    const timer = setTimeout(() => {
      socket.close();
      reject(new Error('no UDP answer'));
    }, timeoutMs);
    socket.once('message', (reply) => {
      clearTimeout(timer);
      socket.close();
      resolve(reply);
    });
    socket.send(message, port, host);
  });
}

/**
 * Sends several framed messages on one connection (optionally in pieces, optionally from a given
 * local address) and reads as many answers.
 */
export function tcpExchange(port: number, messages: Buffer[], options: { split?: boolean; localAddress?: string } = {}): Promise<Buffer[]> {
  return new Promise<Buffer[]>((resolve, reject) => {
    const socket = net.connect({ port, host: '127.0.0.1', ...(options.localAddress === undefined ? {} : { localAddress: options.localAddress }) });
    const answers: Buffer[] = [];
    let pending = Buffer.alloc(0);
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`got ${answers.length} of ${messages.length} TCP answers`));
    }, 3000);
    socket.on('error', reject);
    socket.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      while (pending.length >= 2 && pending.length >= 2 + pending.readUInt16BE(0)) {
        answers.push(pending.subarray(2, 2 + pending.readUInt16BE(0)));
        pending = pending.subarray(2 + pending.readUInt16BE(0));
      }
      if (answers.length === messages.length) {
        clearTimeout(timer);
        socket.end();
        resolve(answers);
      }
    });
    socket.on('connect', () => {
      const framed = Buffer.concat(messages.map((m) => Buffer.concat([Buffer.from([m.length >> 8, m.length & 255]), m])));
      if (!options.split) {
        socket.write(framed);
        return;
      }
      // One byte at a time for the first message's length, then the rest in odd-sized pieces.
      let at = 0;
      const step = () => {
        if (at >= framed.length) return;
        const size = at < 2 ? 1 : 7;
        socket.write(framed.subarray(at, at + size));
        at += size;
        setTimeout(step, 1);
      };
      step();
    });
  });
}

/**
 * Sends every message at once from one socket (IPv4 or IPv6 loopback) and collects the replies until
 * one came for each message or `timeoutMs` passed.
 */
export async function udpBurst(port: number, messages: Buffer[], options: { family?: 4 | 6; timeoutMs?: number } = {}): Promise<Buffer[]> {
  const host = options.family === 6 ? '::1' : '127.0.0.1';
  // A megabyte of receive buffer: the replies may all arrive before this process reads one.
  const socket = dgram.createSocket({ type: options.family === 6 ? 'udp6' : 'udp4', recvBufferSize: 1 << 20 });
  const replies: Buffer[] = [];
  await new Promise<void>((resolve) => socket.bind(0, host, resolve));
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      socket.close();
      resolve(replies);
    };
    const timer = setTimeout(done, options.timeoutMs ?? 3000);
    socket.on('message', (reply) => {
      replies.push(reply);
      if (replies.length === messages.length) done();
    });
    for (const message of messages) socket.send(message, port, host);
  });
}

/** The addresses of the A records in an answer, sorted. */
export function addressesIn(reply: Reply): string[] {
  return (reply.answers ?? []).map((a) => (a.type === 'A' ? a.data : '')).sort();
}

/** dns-packet's decoded message, with the RCODE it decodes but does not declare. */
export type Reply = ReturnType<typeof packet.decode> & { rcode: string };

export const decode = (message: Buffer): Reply => packet.decode(message) as Reply;

export async function ask(port: number, name: string, type: string, options: QueryOptions & { tcp?: boolean } = {}) {
  const message = buildQuery(name, type, options);
  const reply = options.tcp === true ? (await tcpExchange(port, [message]))[0] : await udpExchange(port, message);
  if (reply === undefined) throw new Error('no answer');
  return { raw: reply, packet: decode(reply) };
}
