// What an operator command works with: the store the server uses (same configuration), its schema
// brought up to date, and the use cases' contexts as the API builds them. Changes a command commits
// reach running DNS servers as the API's do: by NOTIFY on PostgreSQL, and by every server's periodic
// comparison of zone versions with the store (within about 2 s, SQLite included).
import { passwordHasher, type PasswordHasher } from '../accounts/password-hasher.ts';
import type { Config } from '../config.ts';
import { loadOrCreateKey } from '../crypto/key-file.ts';
import { sealer } from '../crypto/sealed.ts';
import type { DnsContext } from '../dns/context.ts';
import { ChangeFeed } from '../events/change-feed.ts';
import { openStore, type Store } from '../store/database.ts';
import { migrateToLatest } from '../store/migrate.ts';

export interface OperatorContext {
  store: Store;
  dns: DnsContext;
  passwords: PasswordHasher;
}

/** Runs one piece of work on the configured store, its schema brought up to date, then closes it. */
export async function withStore<T>(config: Config, work: (store: Store, migrated: string[]) => Promise<T>): Promise<T> {
  const store = openStore(config);
  try {
    const applied = await migrateToLatest(store);
    return await work(store, applied);
  } finally {
    await store.close();
  }
}

/** Runs `work` with the contexts of the configured store, then closes it. */
export function withOperatorContext<T>(config: Config, work: (ctx: OperatorContext) => Promise<T>): Promise<T> {
  return withStore(config, (store) => {
    const dns: DnsContext = {
      store,
      config,
      sealer: sealer(loadOrCreateKey(config.dataDir, 'secret.key', config.secretKey)),
      // No subscriber in this process: running servers learn of the change from the store.
      changes: new ChangeFeed(() => undefined),
      // The server's webhook worker looks at the outbox on its own schedule.
      wakeWebhooks: () => undefined,
      // A command's batches are not the server's figures.
      countBatch: () => undefined,
    };
    const passwords = passwordHasher({ concurrency: config.passwordHashConcurrency, queue: config.passwordHashQueue });
    return work({ store, dns, passwords });
  });
}
