// `user add`: a user of the acting administrator's account, as POST /iam/users does; without
// --password one is generated and printed once.
import { generatePassword, minPasswordLength } from '../accounts/passwords.ts';
import { asRole, parseRole } from '../accounts/roles.ts';
import { addUser } from '../accounts/users.ts';
import { ConfigError, parseEmail } from '../config.ts';
import { writeJson, type OperatorCommand } from './command.ts';

export const userAdd: OperatorCommand = {
  usage: 'user add --email E [--role R] [--name N] [--password P]',
  writes: true,
  role: 'Administrators',
  async run(op, caller, args, flags, io) {
    if (args.length > 0 || flags.email === undefined) throw new ConfigError('user add takes --email and no arguments');
    const role = flags.role === undefined ? 'Users' : parseRole({ name: flags.role });
    if (role === undefined) throw new ConfigError('--role: expected Administrators, Users or Read-only');
    if (flags.password !== undefined && flags.password.length < minPasswordLength) throw new ConfigError(`--password must be at least ${String(minPasswordLength)} characters`);
    const password = flags.password ?? generatePassword();
    const user = await addUser(op.store.db, op.passwords, caller, { email: parseEmail(flags.email), password, name: flags.name, role: asRole(role) });
    writeJson(io, flags.password === undefined ? { ...user, password } : user);
  },
};
