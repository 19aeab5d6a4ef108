#!/usr/bin/env node
// CLI entry: `edgeplane [serve] | migrate | account create --email E --password P [--name N]`.
// Every command reads the same configuration (environment, then flags).
import { parseArgs } from 'node:util';
import { createAccount } from './accounts/accounts.ts';
import { passwordHasher } from './accounts/password-hasher.ts';
import { startService, stopOnSignals } from './app.ts';
import { ConfigError, configFlags, loadConfig, parseEmail, settings, type Config } from './config.ts';
import { ApiError } from './errors.ts';
import { createLogger } from './logger.ts';
import { openStore, type Store } from './store/database.ts';
import { migrateToLatest } from './store/migrate.ts';

const usage = `usage: edgeplane [command] [flags]

commands:
  serve                                   run the service (default)
  migrate                                 bring the store's schema up to date and exit
  account create --email E --password P [--name N]
                                          create an account with its first administrator

flags (each also read from its environment variable):
${Object.values(settings)
  .map((s) => `  --${s.flag.padEnd(20)} ${s.env.padEnd(28)} ${s.description}`)
  .join('\n')}
`;

/** Runs one piece of work on a store whose schema is up to date, then closes it. */
async function withStore<T>(config: Config, work: (store: Store, migrated: string[]) => Promise<T>): Promise<T> {
  const store = openStore(config);
  try {
    const applied = await migrateToLatest(store);
    return await work(store, applied);
  } finally {
    await store.close();
  }
}

async function main(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      ...configFlags,
      email: { type: 'string' },
      password: { type: 'string' },
      name: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help === true) {
    process.stdout.write(usage);
    return;
  }
  const config = loadConfig(process.env, values);
  const command = positionals.join(' ') || 'serve';

  switch (command) {
    case 'serve': {
      const logger = createLogger(config.logLevel);
      stopOnSignals(await startService(config, logger), logger);
      return;
    }
    case 'migrate': {
      const applied = await withStore(config, (_store, migrated) => Promise.resolve(migrated));
      process.stdout.write(applied.length > 0 ? `applied: ${applied.join(', ')}\n` : 'schema is up to date\n');
      return;
    }
    case 'account create': {
      if (values.email === undefined || values.password === undefined) throw new ConfigError('account create needs --email and --password');
      if (values.password.length < 8) throw new ConfigError('--password must be at least 8 characters');
      const input = { email: parseEmail(values.email), password: values.password, name: values.name };
      const passwords = passwordHasher({ concurrency: config.passwordHashConcurrency, queue: config.passwordHashQueue });
      const account = await withStore(config, (store) => createAccount(store.db, passwords, input));
      process.stdout.write(`${JSON.stringify(account)}\n`);
      return;
    }
    default:
      throw new ConfigError(`unknown command "${command}"\n\n${usage}`);
  }
}

main(process.argv.slice(2)).catch((e: unknown) => {
  const message = e instanceof ApiError || e instanceof ConfigError || (e as { code?: string }).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION'
    ? (e as Error).message
    : String((e as Error).stack ?? e);
  process.stderr.write(`edgeplane: ${message}\n`);
  process.exit(e instanceof ConfigError ? 2 : 1);
});
