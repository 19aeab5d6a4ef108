// One exchange with one server: the query over UDP (sent again once halfway through the time
// allowed, as a datagram may be lost), and over TCP when the reply comes back truncated. Only a
// reply from the server's address and port, with the query's id and question, is taken: anything
// else on the socket is ignored, so an off-path sender cannot slip in an answer easily.
import dgram from 'node:dgram';
import net from 'node:net';
import type { ListenAddress } from '../../config.ts';
import { decodeReply, MessageError, type Reply } from './message.ts';

export class ExchangeTimeout extends Error {}

/** The reply answers our query: same id and, when it echoes one, the same question. */
function answers(reply: Reply, id: number, name: string, type: number): boolean {
  if (reply.id !== id) return false;
  return reply.question === undefined || (reply.question.name === name && reply.question.type === type);
}

function overUdp(server: ListenAddress, query: Buffer, id: number, name: string, type: number, timeoutMs: number): Promise<Reply> {
  const socket = dgram.createSocket(net.isIPv6(server.host) ? 'udp6' : 'udp4');
  return new Promise<Reply>((resolve, reject) => {
    let done = false;
    const finish = (error: Error | undefined, reply?: Reply) => {
      if (done) return;
      done = true;
      clearTimeout(resend);
      clearTimeout(timer);
      socket.close();
      if (error === undefined && reply !== undefined) resolve(reply);
      else reject(error ?? new Error('no reply'));
    };
    const send = () => socket.send(query, server.port, server.host, (error) => {
      if (error) finish(error);
    });
    const resend = setTimeout(send, timeoutMs / 2);
    const timer = setTimeout(() => finish(new ExchangeTimeout('no reply in time')), timeoutMs);
    socket.on('error', (error) => finish(error));
    socket.on('message', (bytes, from) => {
      if (from.port !== server.port || from.address !== server.host) return;
      let reply: Reply;
      try {
        reply = decodeReply(bytes);
      } catch (e) {
        // Malformed with our id: the server's reply, broken. Without it: noise, keep waiting.
        if (bytes.length >= 2 && bytes.readUInt16BE(0) === id) finish(e as Error);
        return;
      }
      if (answers(reply, id, name, type)) finish(undefined, reply);
    });
    send();
  });
}

function overTcp(server: ListenAddress, query: Buffer, id: number, name: string, type: number, timeoutMs: number): Promise<Reply> {
  return new Promise<Reply>((resolve, reject) => {
    const socket = net.connect({ host: server.host, port: server.port });
    const chunks: Buffer[] = [];
    let received = 0;
    let done = false;
    const finish = (error: Error | undefined, reply?: Reply) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      if (error === undefined && reply !== undefined) resolve(reply);
      else reject(error ?? new Error('no reply'));
    };
    const timer = setTimeout(() => finish(new ExchangeTimeout('no reply in time')), timeoutMs);
    socket.on('error', (error) => finish(error));
    socket.on('connect', () => {
      const length = Buffer.alloc(2);
      length.writeUInt16BE(query.length, 0);
      socket.end(Buffer.concat([length, query]));
    });
    // A reply is at most 65535 octets behind its 2-octet length: nothing more is kept.
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      received += chunk.length;
      if (received < 2) return;
      const all = Buffer.concat(chunks);
      const length = all.readUInt16BE(0);
      if (all.length < 2 + length) return;
      try {
        const reply = decodeReply(all.subarray(2, 2 + length));
        if (answers(reply, id, name, type)) finish(undefined, reply);
        else finish(new MessageError('the reply does not answer the query'));
      } catch (e) {
        finish(e as Error);
      }
    });
    socket.on('end', () => finish(new MessageError('connection closed before a whole reply')));
  });
}

/** Asks `server` and resolves to its reply; rejects with ExchangeTimeout after `timeoutMs` in all. */
export async function exchange(server: ListenAddress, query: Buffer, name: string, type: number, timeoutMs: number): Promise<Reply> {
  const started = Date.now();
  const id = query.readUInt16BE(0);
  const reply = await overUdp(server, query, id, name, type, timeoutMs);
  if (!reply.truncated) return reply;
  return overTcp(server, query, id, name, type, Math.max(1, timeoutMs - (Date.now() - started)));
}
