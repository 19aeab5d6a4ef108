// Sends a request's exact bytes on a new TCP connection and reads what comes back: every corpus
// request goes out this way, to both subjects alike, so neither an HTTP client's checks nor its
// rewriting (header case, framing) stand between the corpus and the server.
import net from 'node:net';

/**
 * How a server answered: a status (with the request id the answer named, to find the server's log
 * lines about it), or closing, resetting or never answering the connection.
 */
export type Outcome = { status: number; requestId: string | undefined } | { refusal: 'closed without an answer' | 'connection reset' | 'no answer in time' | 'not an HTTP answer' };

/** Where the answer names its request: Apache's mod_unique_id (bench's config echoes it), edgeplane's own. */
const idHeader = /^(?:x-unique-id|x-request-id):[ \t]*(\S+)/im;
const headLimit = 16 * 1024;

/** The first response's status and request id; the connection is dropped once its header section is read. */
export function exchange(port: number, bytes: Buffer, timeoutMs: number): Promise<Outcome> {
  return new Promise((resolve) => {
    let received = Buffer.alloc(0);
    let settled = false;
    const socket = net.connect({ host: '127.0.0.1', port });
    const finish = (outcome: Outcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(outcome);
    };
    const timer = setTimeout(() => finish({ refusal: 'no answer in time' }), timeoutMs);
    socket.on('connect', () => socket.write(bytes));
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]).subarray(0, headLimit);
      if (received.indexOf('\r\n\r\n') < 0 && received.length < headLimit) return;
      const head = received.toString('latin1');
      const status = /^HTTP\/\d(?:\.\d)? (\d{3})/.exec(head);
      finish(status === null ? { refusal: 'not an HTTP answer' } : { status: Number(status[1]), requestId: idHeader.exec(head)?.[1] });
    });
    socket.on('end', () => finish(received.length === 0 ? { refusal: 'closed without an answer' } : { refusal: 'not an HTTP answer' }));
    socket.on('error', () => finish(received.length === 0 ? { refusal: 'connection reset' } : { refusal: 'not an HTTP answer' }));
  });
}

/** `exchange` for every request, `concurrency` at a time, in the requests' order. */
export async function exchangeAll(port: number, requests: Buffer[], concurrency: number, timeoutMs: number): Promise<Outcome[]> {
  const outcomes: Outcome[] = new Array<Outcome>(requests.length);
  let next = 0;
  const worker = async () => {
    while (next < requests.length) {
      const i = next++;
      outcomes[i] = await exchange(port, requests[i]!, timeoutMs);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, requests.length) }, worker));
  return outcomes;
}

export const describe = (outcome: Outcome): string => ('status' in outcome ? String(outcome.status) : outcome.refusal);
