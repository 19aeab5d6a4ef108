// Countries (decisions.md): service_geoip_mode 1 refuses the listed countries, 2 lets only them pass;
// an address of unknown country passes in mode 1 and is refused in mode 2. Addresses that are not
// globally reachable (private, loopback, documentation, ...) are never geo-checked: they pass.
import { notAddress } from '../../../geo/address.ts';
import { globallyReachable } from '../../../geo/special-purpose.ts';
import { forbidden } from './answers.ts';
import { clientWords, parseClient } from './parsed-client.ts';
import type { StepCompiler } from './step-deps.ts';

const refused = forbidden('geo');

export const geoStep: StepCompiler = (policy, deps) => {
  const mode = policy.settings.service_geoip_mode;
  const listed = new Set(policy.settings.service_geoip_list.split(',').map((code) => code.trim().toUpperCase()).filter((code) => code !== ''));
  // Mode 1 with nothing listed refuses nothing; mode 2 with nothing listed refuses every public address.
  if (mode !== 1 && mode !== 2) return undefined;
  if (mode === 1 && listed.size === 0) return undefined;
  const refuseListed = mode === 1;
  return (exchange) => {
    const family = parseClient(exchange.client);
    if (family === notAddress || !globallyReachable(family, clientWords)) return undefined;
    const country = deps.geo.lookup(exchange.client).country;
    const isListed = country !== undefined && listed.has(country);
    return isListed === refuseListed ? refused : undefined;
  };
};
