// What the listeners share: what they ask of the server for each message, what they answer when
// that fails, and what a UDP listener gives back (udp.ts chooses among udp-batch.ts and udp-dgram.ts).
import { failure } from './respond.ts';

export type Handler = (message: Buffer, source: string) => Buffer | undefined;

export interface UdpListener {
  port: number;
  /** How it moves datagrams. */
  io: 'batched' | 'dgram';
  close(): Promise<void>;
}

/** The handler's answer to one message: SERVFAIL (respond.ts's `failure`) when it throws, and the server keeps serving. */
export function answer<Reply>(handler: (message: Buffer, source: string) => Reply, message: Buffer, source: string, onError: (e: unknown) => void): Reply | Buffer | undefined {
  try {
    return handler(message, source);
  } catch (e) {
    onError(e);
    return failure(message, e);
  }
}
