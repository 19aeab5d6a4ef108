// Whitelisted clients pass: every other check of the resource is skipped (decisions.md). Its own
// whitelist, and with service_global_whitelist 1 also the operator's EDGEPLANE_PROXY_GLOBAL_WHITELIST
// (the operator's monitoring, office, ...).
import { compileAddressSet, type AddressSet } from './address-set.ts';
import type { StepCompiler } from './step-deps.ts';

/** The global list is one array per thread: compiled once, however many resources use it. */
const globalSets = new WeakMap<readonly string[], AddressSet>();

function globalSet(entries: readonly string[]): AddressSet {
  let set = globalSets.get(entries);
  if (set === undefined) {
    set = compileAddressSet(entries);
    globalSets.set(entries, set);
  }
  return set;
}

export const whitelistStep: StepCompiler = (policy, deps) => {
  const own = policy.whitelist.length > 0 ? compileAddressSet(policy.whitelist) : undefined;
  const global = policy.settings.service_global_whitelist === 1 && deps.settings.globalWhitelist.length > 0 ? globalSet(deps.settings.globalWhitelist) : undefined;
  if (own === undefined && global === undefined) return undefined;
  return (exchange) => (own?.has(exchange.client) === true || global?.has(exchange.client) === true ? 'pass' : undefined);
};
