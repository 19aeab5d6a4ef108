// A resource's origins (placeholder until balancing, health and pools land): the first primary.
import { Pool } from 'undici';
import type { OriginPolicy, ResourcePolicy } from '../policy.ts';
import type { ThreadDeps } from '../thread-deps.ts';

export interface OriginSet {
  pick(client: string, secure: boolean): { origin: OriginPolicy; pool: Pool } | undefined;
  close(): Promise<void>;
}

export function compileOrigins(policy: ResourcePolicy, _deps: ThreadDeps): OriginSet {
  const origin = policy.origins.find((o) => o.mode === 'primary');
  const pool = origin === undefined ? undefined : new Pool(`http://${origin.host.includes(':') ? `[${origin.host}]` : origin.host}:${String(origin.port ?? 80)}`);
  return {
    pick: () => (origin === undefined || pool === undefined ? undefined : { origin, pool }),
    close: async () => {
      await pool?.close();
    },
  };
}
