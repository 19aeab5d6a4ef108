// NOTIFY to secondaries (notify.ts) over real UDP sockets: retried until the secondary acknowledges,
// and an acknowledgement from anywhere else than the secondary's address and port, even with the
// right ID, is not one.
import assert from 'node:assert/strict';
import dgram from 'node:dgram';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import pino from 'pino';
import { notifySecondaries } from '../../src/dns/server/notify.ts';
import { waitFor } from '../support/wait.ts';

interface Received {
  message: Buffer;
  from: dgram.RemoteInfo;
}

async function udpSocket(onMessage: (message: Buffer, from: dgram.RemoteInfo) => void): Promise<dgram.Socket> {
  const socket = dgram.createSocket('udp4');
  socket.on('message', onMessage);
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return socket;
}

/** The response a secondary sends to a NOTIFY: its ID, QR set, opcode NOTIFY, the question echoed. */
function ack(notify: Buffer): Buffer {
  const reply = Buffer.from(notify);
  reply.writeUInt16BE(0x8000 | (4 << 11) | 0x0400, 2);
  return reply;
}

function capturingLogger(lines: string[]) {
  return pino({ level: 'debug' }, new Writable({ write: (chunk: Buffer, _encoding, done) => (lines.push(chunk.toString()), done()) }));
}

test('a forged acknowledgement from another port does not stop the retries; the secondary\'s own does', async () => {
  const received: Received[] = [];
  const secondary = await udpSocket((message, from) => received.push({ message, from }));
  // Another sender on the same host knows the ID (here: it is handed the NOTIFY) and answers first.
  const stranger = await udpSocket(() => undefined);
  const lines: string[] = [];
  try {
    notifySecondaries('example.test', [{ host: '127.0.0.1', port: secondary.address().port }], undefined, capturingLogger(lines));
    await waitFor(() => received.length === 1, 3000);
    const first = received[0]!;
    assert.equal(first.message.readUInt16BE(2) >> 11, 4, 'opcode NOTIFY');
    stranger.send(ack(first.message), first.from.port, first.from.address);
    // The NOTIFY is sent again after 2 s: the stranger's answer was not taken for the secondary's.
    await waitFor(() => received.length === 2, 4000);
    assert.equal(received[1]!.message.readUInt16BE(0), first.message.readUInt16BE(0));
    assert.equal(lines.filter((l) => l.includes('NOTIFY acknowledged')).length, 0);
    secondary.send(ack(received[1]!.message), received[1]!.from.port, received[1]!.from.address);
    await waitFor(() => lines.some((l) => l.includes('NOTIFY acknowledged')), 2000);
    // Acknowledged: no third NOTIFY.
    await new Promise((resolve) => setTimeout(resolve, 2300));
    assert.equal(received.length, 2);
  } finally {
    secondary.close();
    stranger.close();
  }
});
