// Sends the request to an origin and its answer back (placeholder until streaming forwarding lands).
import type { Exchange } from '../exchange.ts';
import type { ServedResource } from '../host-table.ts';
import type { ThreadDeps } from '../thread-deps.ts';

export interface Forwarded {
  outcome: 'passed' | 'origin_error';
  status: number;
}

export async function forward(exchange: Exchange, resource: ServedResource, _deps: ThreadDeps): Promise<Forwarded> {
  const { req, res } = exchange;
  const chosen = resource.origins.pick(exchange.client, exchange.secure);
  if (chosen === undefined) {
    res.writeHead(502, { 'content-type': 'text/plain' });
    res.end('no origin\n');
    return { outcome: 'origin_error', status: 502 };
  }
  try {
    const answer = await chosen.pool.request({ method: exchange.method, path: req.url ?? '/', headers: { host: exchange.host, 'x-forwarded-for': exchange.client } });
    res.writeHead(answer.statusCode, { ...(answer.headers as Record<string, string>), ...exchange.answerHeaders });
    for await (const chunk of answer.body) res.write(chunk);
    res.end();
    return { outcome: 'passed', status: answer.statusCode };
  } catch {
    if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
    res.end('origin error\n');
    return { outcome: 'origin_error', status: 502 };
  }
}
