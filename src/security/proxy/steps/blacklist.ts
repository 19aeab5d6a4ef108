// Blacklisted clients are refused: 403.
import { compileAddressSet } from './address-set.ts';
import { forbidden } from './answers.ts';
import type { StepCompiler } from './step-deps.ts';

const refused = forbidden('blacklist');

export const blacklistStep: StepCompiler = (policy) => {
  if (policy.blacklist.length === 0) return undefined;
  const set = compileAddressSet(policy.blacklist);
  return (exchange) => (set.has(exchange.client) ? refused : undefined);
};
