// The floor under any Node proxy: node:http and node:https in front of one undici Pool driven with
// dispatch(), no policy, no routing — what /work/shared/design/proxy.md measured at 2.5× nginx's CPU.
// `--subject node-floor` runs it in edgeplane's place, so one run tells how much of edgeplane's cost
// is Node's and how much its own. It forwards every host to the primary origin and checks nothing,
// so the checks report the rules it does not enforce; compare it on scenarios 1, 2 and 4.
//
//   node bench/proxy/node-floor.ts HTTP_PORT HTTPS_PORT ORIGIN_PORT CERT_FILE KEY_FILE
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import path from 'node:path';
import { Pool } from 'undici';
import { sleep, terminate, watchLog } from '../api/server.ts';
import { hasExited, spawnPinned } from '../dns/server.ts';
import type { ProxyServer } from './server.ts';

/** Response headers that describe the origin connection, not the answer (RFC 9110, 7.6.1). */
const hopByHop = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade']);

function serve(httpPort: number, httpsPort: number, originPort: number, certFile: string, keyFile: string): void {
  const pool = new Pool(`http://127.0.0.1:${originPort}`, { connections: 64, keepAliveTimeout: 300_000, allowH2: false });
  const handler = (req: http.IncomingMessage, res: http.ServerResponse) => {
    pool.dispatch(
      { method: req.method ?? 'GET', path: req.url ?? '/', headers: { host: req.headers.host ?? '', 'x-forwarded-for': req.socket.remoteAddress ?? '' }, body: null },
      {
        onRequestStart: () => undefined,
        onResponseStart: (_controller, statusCode, headers) => {
          const kept: http.OutgoingHttpHeaders = {};
          for (const name in headers) if (!hopByHop.has(name)) kept[name] = headers[name];
          res.writeHead(statusCode, kept);
        },
        onResponseData: (_controller, chunk) => {
          res.write(chunk);
        },
        onResponseEnd: () => res.end(),
        onResponseError: () => {
          if (!res.headersSent) res.writeHead(502);
          res.end();
        },
      },
    );
  };
  const options = { keepAliveTimeout: 300_000 };
  http.createServer(options, handler).listen(httpPort, '127.0.0.1');
  https.createServer({ ...options, cert: fs.readFileSync(certFile), key: fs.readFileSync(keyFile) }, handler).listen(httpsPort, '127.0.0.1');
  process.on('SIGTERM', () => process.exit(0));
}

export interface NodeFloorOptions {
  httpPort: number;
  httpsPort: number;
  originPort: number;
  certFile: string;
  keyFile: string;
  cpus: string | undefined;
  /** Extra Node options, e.g. --cpu-prof. */
  nodeArgs?: string[];
}

export async function startNodeFloor(options: NodeFloorOptions): Promise<ProxyServer> {
  const args = [...(options.nodeArgs ?? []), import.meta.filename, ...[options.httpPort, options.httpsPort, options.originPort].map(String), options.certFile, options.keyFile];
  const child = spawnPinned(process.execPath, args, options.cpus);
  const log = watchLog(child);
  const stop = () => terminate(child);
  const deadline = Date.now() + 30_000;
  for (;;) {
    const status = await new Promise<number>((resolve) => {
      const request = http.get({ host: '127.0.0.1', port: options.httpPort, path: '/', timeout: 1000, agent: false }, (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      });
      request.on('timeout', () => request.destroy());
      request.on('error', () => resolve(0));
    });
    if (status === 200) break;
    if (hasExited(child) || Date.now() > deadline) {
      await stop();
      throw new Error(`the Node floor proxy did not start:\n${log.tail()}`);
    }
    await sleep(100);
  }
  return {
    name: 'Node floor',
    pid: child.pid!,
    httpPort: options.httpPort,
    httpsPort: options.httpsPort,
    description: `Node floor on Node ${process.version}: node:http/https → one undici Pool (dispatch, 64 connections), no policy (${path.basename(import.meta.filename)})${options.cpus === undefined ? '' : `, CPUs ${options.cpus}`}`,
    log,
    hasExited: () => hasExited(child),
    stop,
  };
}

if (import.meta.main) {
  const [httpPort, httpsPort, originPort, certFile, keyFile] = process.argv.slice(2);
  serve(Number(httpPort), Number(httpsPort), Number(originPort), certFile!, keyFile!);
}
