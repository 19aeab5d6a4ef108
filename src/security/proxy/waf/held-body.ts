// The start of a request body, held so the WAF can inspect it before anything reaches the origin,
// then forwarded with the rest: the body is read through the same BodyLimit forwarding uses (its
// size and pace limits run from the first byte, the WAF's wait included), up to `bytes`; what was
// read goes first into the stream forwarded (or, when the body ended within it, is forwarded as it is),
// so the origin gets every byte once and the rest still streams at the client's pace.
import { PassThrough, Readable } from 'node:stream';
import { limitBody, type BodyLimit } from '../body-limit.ts';
import type { ProxyRequest } from '../exchange.ts';
import type { ProxyLimits } from '../server-limits.ts';

export interface HeldBody {
  /** What the WAF inspects: the first `bytes` of the body, or all of it. */
  prefix: Buffer;
  /** The whole body to forward, the prefix first. */
  body: Readable;
}

/** Resolves with the held body, or rejects with what ended it (a BodyRefused, the client gone). */
export function holdBody(req: ProxyRequest, limits: ProxyLimits, bytes: number): Promise<HeldBody> {
  const limited: BodyLimit = limitBody(req, limits);
  // Once held, the body may fail (too slow, the client gone) before forwarding listens, or with
  // nobody left to listen (the WAF refused the request): forwarding has listeners of its own.
  limited.on('error', () => undefined);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (ended: boolean) => {
      limited.off('data', onData);
      limited.off('end', onEnd);
      limited.off('error', onError);
      const prefix = Buffer.concat(chunks);
      if (ended) {
        resolve({ prefix, body: Readable.from(prefix.length > 0 ? [prefix] : []) });
        return;
      }
      // The rest follows through a stream of its own, the held bytes first: piping keeps the
      // origin's backpressure (and so the limit's pace accounting) as forwarding `limited` would.
      const body = new PassThrough();
      body.on('error', () => undefined);
      body.write(prefix);
      limited.on('error', (error) => body.destroy(error));
      // Dropped (the request refused): the limit's timer and what it holds go with it.
      body.on('close', () => limited.destroy());
      limited.pipe(body);
      resolve({ prefix: prefix.subarray(0, bytes), body });
    };
    const onData = (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= bytes) done(false);
    };
    const onEnd = () => done(true);
    const onError = (error: Error) => {
      limited.off('data', onData);
      reject(error);
    };
    limited.on('data', onData);
    limited.once('end', onEnd);
    limited.once('error', onError);
  });
}
