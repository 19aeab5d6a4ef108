// Which addresses an origin connection may reach. Origins are chosen by tenants but connected to by
// the operator's machine, so unless the operator allows it, an origin is refused when the address
// actually connected to is not public (loopback, private, link-local, unspecified, multicast, ...):
// a host name is checked on what it resolves to at connect time, inside the connection's own
// lookup, so a DNS answer that changes after a check (rebinding) cannot reach the operator's
// network; an address needs no lookup and is checked once (origin-pools.ts).
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { nonPublic } from '../../../net/public-address.ts';

/** An origin refused by the destination policy: the proxy treats it as a connection failure. */
export class PrivateOriginError extends Error {
  override name = 'PrivateOriginError';
  readonly code = 'EDGEPLANE_PRIVATE_ORIGIN';
}

/** Why an origin given as an address is refused, or undefined when it may be connected to. */
export function refusedAddress(address: string): PrivateOriginError | undefined {
  const kind = nonPublic(address);
  return kind === undefined ? undefined : new PrivateOriginError(`origin ${address} is a ${kind} address: only public addresses are allowed`);
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** net.connect's lookup, keeping only public addresses (refusing when none is left). */
export function publicLookup(hostname: string, options: LookupOptions, callback: LookupCallback): void {
  dnsLookup(hostname, { family: options.family ?? 0, hints: options.hints ?? 0, all: true }, (error, addresses) => {
    if (error !== null) {
      callback(error, '');
      return;
    }
    const allowed = addresses.filter(({ address }) => nonPublic(address) === undefined);
    const first = allowed[0];
    if (first === undefined) {
      const shown = addresses[0] === undefined ? 'no address' : `${addresses[0].address}, a ${nonPublic(addresses[0].address) ?? ''} address`;
      callback(new PrivateOriginError(`origin ${hostname} resolves to ${shown}: only public addresses are allowed`), '');
      return;
    }
    if (options.all === true) callback(null, allowed);
    else callback(null, first.address, first.family);
  });
}
