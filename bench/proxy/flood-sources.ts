// The many-sources flood (flood-many.ts): HTTP/1.1 keep-alive GETs to one resource from many loopback
// addresses (Linux routes all of 127/8 to lo), as a botnet's scripts send them — no JavaScript, no
// cookies. Most addresses are paced at a rate a per-address limit lets through; a few heavy ones send
// as fast as their connections go. wrk cannot bind a source address, so this is Node on raw sockets
// (Node's http client would cap the flood at a fraction of what a core can send), in a process of its
// own (this file is also its entry point), pinned to the load tools' CPU.
import net from 'node:net';
import { clientMain, runClientProcess } from './client-process.ts';

export interface FloodOptions {
  port: number;
  /** The Host header: the resource. */
  host: string;
  /** Paced sources: 127.1.0.1 on, one connection each, `rate` requests a second each. */
  sources: number;
  rate: number;
  /** Heavy sources: 127.3.0.1 on, `heavyConnections` each, unpaced. */
  heavy: number;
  heavyConnections: number;
  seconds: number;
}

export interface FloodResult {
  /** Requests written. */
  sent: number;
  /** Responses, by status. */
  answered: [number, number][];
  /** Connections that failed or were closed before their answer, and answers over 5 s. */
  failures: number;
  /** Connections opened (the proxy closing connections makes the flood reconnect). */
  connects: number;
  durationS: number;
}

/** The paced source number `i`'s address: 250 to a /24, from 127.1.0.1. */
export const sourceAddress = (i: number): string => `127.1.${Math.floor(i / 250)}.${(i % 250) + 1}`;
export const heavyAddress = (i: number): string => `127.3.0.${i + 1}`;

const timeoutMs = 5000;
/** After a connection that got no answer (refused, reset): a flood retries, but not in a loop as tight as the CPU allows. */
const reconnectDelayMs = 50;
const headerEnd = Buffer.from('\r\n\r\n');
const chunkedEnd = Buffer.from('\r\n0\r\n\r\n');

/**
 * One HTTP/1.1 response's end in `buffer`, or -1 when it is not all there: by Content-Length, or
 * the last chunk of a chunked body (bodies here are small pages; a chunk holding that sequence
 * would end one early, which only miscounts a flood's answer).
 */
function responseEnd(buffer: Buffer): { end: number; status: number; close: boolean } | undefined {
  const head = buffer.indexOf(headerEnd);
  if (head < 0) return undefined;
  const headers = buffer.toString('latin1', 0, head);
  const status = Number(headers.slice(9, 12));
  const close = /\r\nconnection:\s*close/i.test(headers);
  const length = /\r\ncontent-length:\s*(\d+)/i.exec(headers);
  if (length !== null) {
    const end = head + 4 + Number(length[1]);
    return end <= buffer.length ? { end, status, close } : undefined;
  }
  if (/\r\ntransfer-encoding:\s*chunked/i.test(headers)) {
    const last = buffer.indexOf(chunkedEnd, head + 4 - 2);
    return last < 0 ? undefined : { end: last + chunkedEnd.length, status, close };
  }
  // Neither: the body runs to the connection's close (or there is none, as for 204 and 304).
  return status === 204 || status === 304 ? { end: head + 4, status, close } : undefined;
}

export async function flood(options: FloodOptions): Promise<FloodResult> {
  const request = Buffer.from(`GET / HTTP/1.1\r\nHost: ${options.host}\r\nUser-Agent: flood/1\r\nAccept: */*\r\n\r\n`, 'latin1');
  const answered = new Map<number, number>();
  const totals = { sent: 0, failures: 0, connects: 0 };
  const started = performance.now();
  const endAt = started + options.seconds * 1000;
  const sockets = new Set<net.Socket>();

  /** One connection's life: connect, send when due, read the answer, again; reconnect when closed. */
  const connection = (localAddress: string, intervalMs: number, offsetMs: number) =>
    new Promise<void>((done) => {
      let next = started + offsetMs;
      const open = () => {
        if (performance.now() >= endAt) return done();
        totals.connects++;
        const socket = net.connect({ host: '127.0.0.1', port: options.port, localAddress, noDelay: true });
        sockets.add(socket);
        let buffer: Buffer = Buffer.alloc(0);
        let waiting = false;
        let answers = 0;
        let timer: NodeJS.Timeout | undefined;
        const send = () => {
          timer = undefined;
          if (performance.now() >= endAt) return socket.destroy();
          waiting = true;
          totals.sent++;
          socket.write(request);
          timer = setTimeout(() => socket.destroy(), timeoutMs);
        };
        const schedule = () => {
          next = Math.max(next + intervalMs, performance.now());
          const wait = next - performance.now();
          if (wait > 0) timer = setTimeout(send, wait);
          else send();
        };
        socket.on('connect', schedule);
        socket.on('data', (chunk: Buffer) => {
          buffer = buffer.length === 0 ? chunk : Buffer.concat([buffer, chunk]);
          const response = responseEnd(buffer);
          if (response === undefined) return;
          clearTimeout(timer);
          waiting = false;
          answers++;
          answered.set(response.status, (answered.get(response.status) ?? 0) + 1);
          buffer = buffer.subarray(response.end);
          if (response.close) socket.destroy();
          else schedule();
        });
        socket.on('error', () => undefined);
        socket.on('close', () => {
          clearTimeout(timer);
          sockets.delete(socket);
          if (waiting && performance.now() < endAt) totals.failures++;
          setTimeout(open, answers === 0 ? reconnectDelayMs : 0);
        });
      };
      open();
    });

  const intervalMs = 1000 / options.rate;
  const all: Promise<void>[] = [];
  for (let i = 0; i < options.sources; i++) all.push(connection(sourceAddress(i), intervalMs, (i / options.sources) * intervalMs));
  for (let i = 0; i < options.heavy; i++) for (let c = 0; c < options.heavyConnections; c++) all.push(connection(heavyAddress(i), 0, 0));
  // Connections waiting for an answer at the deadline are cut: their requests count as sent only.
  setTimeout(() => {
    for (const socket of sockets) socket.destroy();
  }, options.seconds * 1000 + 50).unref();
  await Promise.all(all);
  return { ...totals, answered: [...answered], durationS: (performance.now() - started) / 1000 };
}

/** `flood` in a process of its own, pinned to `cpus`. */
export function floodProcess(options: FloodOptions, cpus: string | undefined): Promise<FloodResult> {
  return runClientProcess<FloodResult>(import.meta.filename, options, { cpus });
}

if (import.meta.main) await clientMain(flood);
