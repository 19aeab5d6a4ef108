// The PostgreSQL driver, loaded the first time PostgreSQL is used: a process on the embedded SQLite
// store never loads it (1.4 MiB of heap and 0.45 MiB outside it in every thread that imported it:
// docs/dns-server.md, "Memory"). pg is CommonJS, so it can be loaded synchronously, when the store
// opens, as well as by the listeners that connect later.
import { createRequire } from 'node:module';
import type pgModule from 'pg';

let loaded: typeof pgModule | undefined;

export function pgDriver(): typeof pgModule {
  if (loaded === undefined) {
    loaded = createRequire(import.meta.url)('pg') as typeof pgModule;
    // COUNT(*) and BIGINT come back from pg as strings; every count we keep fits a JS number.
    loaded.types.setTypeParser(loaded.types.builtins.INT8, Number);
  }
  return loaded;
}
