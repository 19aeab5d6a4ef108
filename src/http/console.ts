// The web console: one page at /console/ whose script and styles esbuild bundles from src/console/
// when the API starts (nothing to build beforehand, nothing fetched from elsewhere), served with a
// Content Security Policy that allows only those two files and calls back to this API.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { FastifyInstance, FastifyReply } from 'fastify';

const sourceDir = fileURLToPath(new URL('../console/', import.meta.url));

interface ConsoleFiles {
  html: string;
  js: string;
  css: string;
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
  });
  const output = (extension: string): string => {
    const file = result.outputFiles.find((f) => f.path.endsWith(extension));
    if (file === undefined) throw new Error(`console bundle has no ${extension} output`);
    return file.text;
  };
  return { html: await readFile(`${sourceDir}index.html`, 'utf8'), js: output('.js'), css: output('.css') };
}

function secured(reply: FastifyReply, type: string): FastifyReply {
  return reply
    .type(type)
    .header('content-security-policy', contentSecurityPolicy)
    .header('x-frame-options', 'DENY')
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer')
    .header('cache-control', 'no-cache');
}

export async function registerConsole(app: FastifyInstance): Promise<void> {
  // A broken console must not take the API down with it: the bundle is built now so that an error
  // shows at start, and the API serves either way.
  await consoleFiles().catch((error: unknown) => app.log.error({ err: error }, 'web console did not build'));
  const hidden = { schema: { hide: true } };
  app.get('/', hidden, (_request, reply) => reply.redirect('/console/'));
  app.get('/console', hidden, (_request, reply) => reply.redirect('/console/'));
  app.get('/console/', hidden, async (_request, reply) => secured(reply, 'text/html; charset=utf-8').send((await consoleFiles()).html));
  app.get('/console/console.js', hidden, async (_request, reply) => secured(reply, 'text/javascript; charset=utf-8').send((await consoleFiles()).js));
  app.get('/console/console.css', hidden, async (_request, reply) => secured(reply, 'text/css; charset=utf-8').send((await consoleFiles()).css));
}
