// `token create|list|revoke`: the acting user's API tokens, through the same use cases as
// /iam/clients/{id}/tokens (an administrator sees and revokes all of the account's). The secret is
// printed once, at creation, as the API shows it once.
import { createApiToken, deleteApiToken, listApiTokens } from '../accounts/api-tokens.ts';
import { parseRole } from '../accounts/roles.ts';
import { ConfigError } from '../config.ts';
import { oneArgument, writeJson, type OperatorCommand } from './command.ts';

export const tokenCreate: OperatorCommand = {
  usage: 'token create --name N [--role R] [--expires ISO-8601] [--description D]',
  writes: true,
  async run(op, caller, args, flags, io) {
    if (args.length > 0 || flags.name === undefined) throw new ConfigError('token create takes --name and no arguments');
    const role = flags.role === undefined ? undefined : parseRole({ name: flags.role });
    if (flags.role !== undefined && role === undefined) throw new ConfigError('--role: expected Administrators, Users or Read-only');
    const token = await createApiToken(op.store.db, caller, caller.accountId, {
      name: flags.name,
      description: flags.description,
      exp_date: flags.expires,
      client_user: role === undefined ? undefined : { role: { name: role } },
    });
    writeJson(io, token);
  },
};

export const tokenList: OperatorCommand = {
  usage: 'token list',
  writes: false,
  async run(op, caller, args, _flags, io) {
    if (args.length > 0) throw new ConfigError('token list takes no arguments');
    writeJson(io, await listApiTokens(op.store.db, caller, caller.accountId));
  },
};

export const tokenRevoke: OperatorCommand = {
  usage: 'token revoke TOKEN-ID',
  writes: true,
  async run(op, caller, args, _flags, io) {
    const id = Number(oneArgument(args, 'token id'));
    if (!Number.isSafeInteger(id) || id <= 0) throw new ConfigError('the token id is a positive integer (see token list)');
    await deleteApiToken(op.store.db, caller, caller.accountId, id);
    io.stdout.write(`revoked token ${String(id)}\n`);
  },
};
