// What the listeners share: what they ask of the server for each message, what they answer when
// that fails, and what a UDP listener gives back (udp.ts chooses among udp-batch.ts and udp-dgram.ts).

export type Handler = (message: Buffer, source: string) => Buffer | undefined;

export interface UdpListener {
  port: number;
  /** How it moves datagrams. */
  io: 'batched' | 'dgram';
  close(): Promise<void>;
}

export function serverFailure(message: Buffer): Buffer | undefined {
  if (message.length < 12) return undefined;
  const reply = Buffer.from(message.subarray(0, 12));
  // QR set, opcode and RD kept, RCODE 2; no sections.
  reply.writeUInt16BE((message.readUInt16BE(2) & 0x7900) | 0x8002, 2);
  reply.fill(0, 4, 12);
  return reply;
}

/** The handler's answer to one message: SERVFAIL when it throws, and the server keeps serving. */
export function answer<Reply>(handler: (message: Buffer, source: string) => Reply, message: Buffer, source: string, onError: (e: unknown) => void): Reply | Buffer | undefined {
  try {
    return handler(message, source);
  } catch (e) {
    onError(e);
    return serverFailure(message);
  }
}
