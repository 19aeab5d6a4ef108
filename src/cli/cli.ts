// The command line: `edgeplane [serve] | migrate | account create | zone export|import | token
// create|list|revoke | user add | dnssec ds`. Every command reads the service's configuration
// (environment, then flags), so an operator command works on the store the server runs on.
// Exit codes: 0 done, 1 refused or failed (the API's message on stderr), 2 a usage or configuration
// error, 3 not found (a zone, a token), so that scripts can tell "absent" from "broken".
import { parseArgs } from 'node:util';
import { createAccount } from '../accounts/accounts.ts';
import { passwordHasher } from '../accounts/password-hasher.ts';
import { minPasswordLength } from '../accounts/passwords.ts';
import { startService, stopOnSignals } from '../app.ts';
import { ConfigError, configFlags, loadConfig, parseEmail, settings } from '../config.ts';
import { ApiError } from '../errors.ts';
import { createLogger } from '../logger.ts';
import { actingUser } from './acting-user.ts';
import { authorize, type CliIo, type OperatorCommand } from './command.ts';
import { dnssecDs } from './dnssec-commands.ts';
import { withOperatorContext, withStore } from './operator-context.ts';
import { tokenCreate, tokenList, tokenRevoke } from './token-commands.ts';
import { userAdd } from './user-commands.ts';
import { zoneExport, zoneImport } from './zone-commands.ts';
import { releaseStartupHeap } from '../startup-heap.ts';
import { trimCHeap } from '../c-heap.ts';

export const exitCodes = { ok: 0, failed: 1, usage: 2, notFound: 3 } as const;

/** Commands of two words that act in a user's name (`--as`). */
const operatorCommands: ReadonlyMap<string, OperatorCommand> = new Map([
  ['zone export', zoneExport],
  ['zone import', zoneImport],
  ['token create', tokenCreate],
  ['token list', tokenList],
  ['token revoke', tokenRevoke],
  ['user add', userAdd],
  ['dnssec ds', dnssecDs],
]);

const usage = `usage: edgeplane [command] [flags]

commands:
  serve                                   run the service (default)
  migrate                                 bring the store's schema up to date and exit
  account create --email E --password P [--name N]
                                          create an account with its first administrator
${[...operatorCommands.values()].map((c) => `  ${c.usage}`).join('\n')}

  The commands from "zone" on act as the user --as EMAIL names (default: the operators' first
  administrator), with that user's role, as the API would. Exit codes: 0 done, 1 refused or failed,
  2 usage or configuration error, 3 not found.

flags (each also read from its environment variable):
${Object.values(settings)
  .map((s) => `  --${s.flag.padEnd(20)} ${s.env.padEnd(28)} ${s.description}`)
  .join('\n')}
`;

async function run(argv: string[], env: NodeJS.ProcessEnv, io: CliIo): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      ...configFlags,
      email: { type: 'string' },
      password: { type: 'string' },
      name: { type: 'string' },
      as: { type: 'string' },
      file: { type: 'string' },
      role: { type: 'string' },
      description: { type: 'string' },
      expires: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help === true) {
    io.stdout.write(usage);
    return;
  }
  const config = loadConfig(env, values);
  const command = positionals.slice(0, 2).join(' ');
  const operator = operatorCommands.get(command);
  if (operator !== undefined) {
    await withOperatorContext(config, async (op) => {
      const caller = await actingUser(op.store.db, values.as);
      authorize(caller, operator);
      await operator.run(op, caller, positionals.slice(2), values, io);
    });
    return;
  }
  switch (positionals.join(' ') || 'serve') {
    case 'serve': {
      const logger = createLogger(config.logLevel);
      stopOnSignals(await startService(config, logger), logger);
      await releaseStartupHeap();
      trimCHeap();
      return;
    }
    case 'migrate': {
      const applied = await withStore(config, (_store, migrated) => Promise.resolve(migrated));
      io.stdout.write(applied.length > 0 ? `applied: ${applied.join(', ')}\n` : 'schema is up to date\n');
      return;
    }
    case 'account create': {
      if (values.email === undefined || values.password === undefined) throw new ConfigError('account create needs --email and --password');
      if (values.password.length < minPasswordLength) throw new ConfigError(`--password must be at least ${String(minPasswordLength)} characters`);
      const input = { email: parseEmail(values.email), password: values.password, name: values.name };
      const passwords = passwordHasher({ concurrency: config.passwordHashConcurrency, queue: config.passwordHashQueue });
      const account = await withStore(config, (store) => createAccount(store.db, passwords, input));
      io.stdout.write(`${JSON.stringify(account)}\n`);
      return;
    }
    default:
      throw new ConfigError(`unknown command "${positionals.join(' ')}"\n\n${usage}`);
  }
}

/** Runs the command `argv` asks for; resolves to the process's exit code, the error written to `io.stderr`. */
export async function runCli(argv: string[], env: NodeJS.ProcessEnv, io: CliIo): Promise<number> {
  try {
    await run(argv, env, io);
    return exitCodes.ok;
  } catch (e) {
    const usageError = e instanceof ConfigError || (e as { code?: string }).code?.startsWith('ERR_PARSE_ARGS') === true;
    if (e instanceof ApiError) {
      // A field whose message is the error's own adds nothing to it.
      const named = Object.entries(e.fields ?? {}).filter(([, v]) => v !== e.message);
      const fields = named.length === 0 ? '' : ` (${named.map(([k, v]) => `${k}: ${v}`).join('; ')})`;
      io.stderr.write(`edgeplane: ${e.message}${fields}\n`);
      return e.status === 404 ? exitCodes.notFound : exitCodes.failed;
    }
    io.stderr.write(`edgeplane: ${usageError ? (e as Error).message : String((e as Error).stack ?? e)}\n`);
    return usageError ? exitCodes.usage : exitCodes.failed;
  }
}
