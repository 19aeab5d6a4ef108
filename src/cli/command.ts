// What every operator command gets: the store and contexts, the user it acts as, its words after
// the command's own (`zone export example.com` → ['example.com']), the flags, and where to write.
import type { Readable, Writable } from 'node:stream';
import type { Principal } from '../accounts/principal.ts';
import { atLeast, type Role } from '../accounts/roles.ts';
import { ConfigError } from '../config.ts';
import { forbidden } from '../errors.ts';
import type { OperatorContext } from './operator-context.ts';

export interface CliIo {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
}

export interface CommandFlags {
  as?: string | undefined;
  file?: string | undefined;
  name?: string | undefined;
  email?: string | undefined;
  password?: string | undefined;
  role?: string | undefined;
  description?: string | undefined;
  expires?: string | undefined;
}

export interface OperatorCommand {
  /** Its words and arguments as the usage shows them. */
  usage: string;
  /** It changes something: refused to read-only users, as the API refuses them every method but GET. */
  writes: boolean;
  /** The role it needs beyond that, as the API's route does (adding users: Administrators). */
  role?: Role;
  run(op: OperatorContext, caller: Principal, args: string[], flags: CommandFlags, io: CliIo): Promise<void>;
}

/** The API's authorization of the caller for the command's route (http/auth.ts), before it runs. */
export function authorize(caller: Principal, command: OperatorCommand): void {
  if (command.writes && caller.role === 'Read-only') throw forbidden('this token or user is read-only');
  if (command.role !== undefined && !atLeast(caller.role, command.role)) throw forbidden(`this operation needs the ${command.role} role`);
}

/** The one argument a command takes (a zone, a token id), or a usage error. */
export function oneArgument(args: string[], what: string): string {
  const [value, ...rest] = args;
  if (value === undefined || rest.length > 0) throw new ConfigError(`expected one ${what}`);
  return value;
}

export const writeJson = (io: CliIo, value: unknown): void => {
  io.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
};
