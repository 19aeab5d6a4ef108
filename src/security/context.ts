// What the protected-resource use cases need, built once at start.
import type { Config } from '../config.ts';
import type { Sealer } from '../crypto/sealed.ts';
import type { ChangeFeed, ResourceChange } from '../events/change-feed.ts';
import type { Store } from '../store/database.ts';

export interface SecurityContext {
  store: Store;
  config: Pick<Config, 'publicIpv4' | 'publicIpv6' | 'wafMode'>;
  sealer: Sealer;
  changes: ChangeFeed<ResourceChange>;
}
