// The web console: one page at /console/ whose script and styles esbuild bundles from src/console/
// when the API starts (nothing to build beforehand, nothing fetched from elsewhere), served with a
// Content Security Policy that allows only those two files and calls back to this API.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build, stop } from 'esbuild';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

const sourceDir = fileURLToPath(new URL('../console/', import.meta.url));

/** A file as served: its bytes, compressed once, and a tag for revalidation. */
interface Asset {
  type: string;
  body: Buffer;
  gzipped: Buffer;
  etag: string;
}

interface ConsoleFiles {
  html: Asset;
  js: Asset;
  css: Asset;
}

// No inline script or style anywhere: the charts set styles through the DOM, which CSP allows.
const contentSecurityPolicy = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

let bundled: Promise<ConsoleFiles> | undefined;

/** Bundled once per process (about 100 ms): every API server of the process serves the same files. */
function consoleFiles(): Promise<ConsoleFiles> {
  bundled ??= bundle();
  return bundled;
}

async function bundle(): Promise<ConsoleFiles> {
  // The process bundles once: esbuild's service process (about 25 MiB) need not stay.
  const result = await build({
    entryPoints: [`${sourceDir}main.ts`],
    bundle: true,
    write: false,
    format: 'esm',
    target: 'es2022',
    minify: true,
    outdir: '/console',
    entryNames: 'console',
    logLevel: 'silent',
  }).finally(stop);
  const output = (extension: string): Uint8Array => {
    const file = result.outputFiles.find((f) => f.path.endsWith(extension));
    if (file === undefined) throw new Error(`console bundle has no ${extension} output`);
    return file.contents;
  };
  return {
    html: asset('text/html; charset=utf-8', await readFile(`${sourceDir}index.html`)),
    js: asset('text/javascript; charset=utf-8', output('.js')),
    css: asset('text/css; charset=utf-8', output('.css')),
  };
}

function asset(type: string, content: Uint8Array): Asset {
  const body = Buffer.from(content);
  return { type, body, gzipped: gzipSync(body, { level: 9 }), etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"` };
}

/** Browsers revalidate every time (no-cache) and get 304 while the bundle is the same. */
async function serve(request: FastifyRequest, reply: FastifyReply, pick: (files: ConsoleFiles) => Asset): Promise<FastifyReply> {
  const file = pick(await consoleFiles());
  reply
    .type(file.type)
    .header('content-security-policy', contentSecurityPolicy)
    .header('x-frame-options', 'DENY')
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer')
    .header('cache-control', 'no-cache')
    .header('etag', file.etag)
    .header('vary', 'accept-encoding');
  if (request.headers['if-none-match'] === file.etag) return reply.code(304).send();
  if (!/\bgzip\b/.test(request.headers['accept-encoding'] ?? '')) return reply.send(file.body);
  return reply.header('content-encoding', 'gzip').send(file.gzipped);
}

export async function registerConsole(app: FastifyInstance): Promise<void> {
  // A broken console must not take the API down with it: the bundle is built now so that an error
  // shows at start, and the API serves either way.
  await consoleFiles().catch((error: unknown) => app.log.error({ err: error }, 'web console did not build'));
  const hidden = { schema: { hide: true } };
  app.get('/', hidden, (_request, reply) => reply.redirect('/console/'));
  app.get('/console', hidden, (_request, reply) => reply.redirect('/console/'));
  app.get('/console/', hidden, (request, reply) => serve(request, reply, (files) => files.html));
  app.get('/console/console.js', hidden, (request, reply) => serve(request, reply, (files) => files.js));
  app.get('/console/console.css', hidden, (request, reply) => serve(request, reply, (files) => files.css));
}
