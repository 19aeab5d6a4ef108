// UDP in batches through the native addon (native/udp_batch.c, built by `npm ci` on Linux): the
// addon reads up to `batch` datagrams with one recvmmsg, calls `onBatch` once for all of them and
// sends the replies with one sendmmsg. Datagrams, replies and their descriptions live in three
// buffers lent to the addon for the socket's life; a handler must not keep a datagram past its call
// (the next batch overwrites it).
import { createRequire } from 'node:module';
import type { ListenAddress } from '../../config.ts';
import { answer, type Handler, type UdpListener } from './listener.ts';

interface UdpBatchAddon {
  open(host: string, port: number, reusePort: boolean): [handle: object, port: number];
  start(handle: object, input: Buffer, output: Buffer, meta: Buffer, onBatch: (count: number) => void): void;
  close(handle: object): void;
  /** Datagrams per batch. */
  batch: number;
  /** Octets per datagram and per reply: a longer datagram arrives as too long (length -1). */
  slot: number;
  /** 32-bit words describing each datagram: see `Meta`. */
  metaWords: number;
}

/** Word offsets in a datagram's description. */
const Meta = { length: 0, replyLength: 1, addressLength: 2, addressText: 3 } as const;

const addonPath = '../../../build/Release/udp_batch.node';

function load(): { addon: UdpBatchAddon } | { unavailable: string } {
  if (process.platform !== 'linux') return { unavailable: `batched UDP needs Linux (recvmmsg), not ${process.platform}` };
  try {
    return { addon: createRequire(import.meta.url)(addonPath) as UdpBatchAddon };
  } catch (e) {
    return { unavailable: `the UDP addon did not load (${(e as Error).message.split('\n')[0] ?? ''}); npm ci builds it with python3, make and a C compiler` };
  }
}

const loaded = load();

/** Why batched UDP cannot be used here, or undefined when it can. */
export function udpBatchUnavailable(): string | undefined {
  return 'unavailable' in loaded ? loaded.unavailable : undefined;
}

export function listenUdpBatched(address: ListenAddress, handler: Handler, onError: (e: unknown) => void, shared: boolean): UdpListener {
  if (!('addon' in loaded)) throw new Error(loaded.unavailable);
  const { addon } = loaded;
  const { batch, slot, metaWords } = addon;
  const [handle, port] = addon.open(address.host, address.port, shared);
  const input = Buffer.alloc(batch * slot);
  const output = Buffer.alloc(batch * slot);
  const meta = Buffer.alloc(batch * metaWords * 4);
  const words = new Int32Array(meta.buffer, meta.byteOffset, batch * metaWords);
  const onBatch = (count: number) => {
    for (let i = 0; i < count; i++) {
      const at = i * metaWords;
      const length = words[at + Meta.length] ?? -1;
      // Longer than any query this server answers (the slot is 4096 octets): dropped, as dgram
      // would have delivered it to a parser that refuses it anyway.
      if (length < 0) continue;
      const textAt = (at + Meta.addressText) * 4;
      const source = meta.toString('latin1', textAt, textAt + (words[at + Meta.addressLength] ?? 0));
      const message = input.subarray(i * slot, i * slot + length);
      const reply = answer(handler, message, source, onError);
      // UDP replies stop at 1232 octets (respond.ts), far below a slot.
      if (reply === undefined || reply.length > slot) continue;
      output.set(reply, i * slot);
      words[at + Meta.replyLength] = reply.length;
    }
  };
  try {
    addon.start(handle, input, output, meta, onBatch);
  } catch (e) {
    addon.close(handle);
    throw e;
  }
  return {
    port,
    io: 'batched',
    close: () => {
      addon.close(handle);
      return Promise.resolve();
    },
  };
}
