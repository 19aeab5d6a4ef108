// Worker threads that never load a TypeScript stripper. Node strips a .ts module's types with amaro,
// a WebAssembly build of swc that each thread loads the first time it strips: about 9 MiB per thread
// (its 3.8 MB source, the compiled module and its memory), more than the DNS or proxy code a worker
// runs. With Node's compile cache on, a module whose stripped form (and V8 code) is in the cache is
// not stripped again: the main thread strips the application once and writes the cache, and a worker
// pointed at it (`workerEnv`) imports from it. The cache is checked against each file's content, so
// an edited file is stripped afresh, never served stale.
import module from 'node:module';
import { fileURLToPath } from 'node:url';

/**
 * Beside the code it is derived from, not in a shared temporary directory: whoever can write there
 * could put code of theirs into the service. Where that is not writable the cache stays off, and
 * every thread strips for itself as before. `NODE_COMPILE_CACHE` (another directory) and
 * `NODE_DISABLE_COMPILE_CACHE=1` take precedence, as Node defines.
 */
const cacheDir = fileURLToPath(new URL('../node_modules/.cache/edgeplane-compile', import.meta.url));

/** Called before the application is imported (main.ts), so that its modules go into the cache. */
export function enableCompileCache(): void {
  module.enableCompileCache(cacheDir);
}

/** The environment of a worker thread: the process's, with the compile cache (when on) written out
 *  so far and named, so the worker reads its modules from it from its first import on. */
export function workerEnv(): NodeJS.ProcessEnv {
  // (getCompileCacheDir names the cache's subdirectory for this Node and its flags, not the root.)
  if (module.getCompileCacheDir() === undefined) return process.env;
  module.flushCompileCache();
  return { NODE_COMPILE_CACHE: cacheDir, ...process.env };
}
