// Reads resources from the store as the policies proxy threads compile (policy.ts): the role's main
// thread does it once at start, again for each changed resource, and in full when ownership may have
// moved (a zone was created or deleted) or the store changed behind its back.
import type { Sealer } from '../../crypto/sealed.ts';
import { acmeChallengesOf } from '../../store/acme.ts';
import type { Db } from '../../store/database.ts';
import { listResourcesById, listAllResources, resourceDetails, type ResourceDetails, type ResourceRow } from '../../store/resources.ts';
import { releasedHosts } from '../host-ownership.ts';
import { settingDefaults, type Settings } from '../resource-input.ts';
import { tlsKeyContext } from '../resources.ts';
import type { OriginMode, OriginPolicy, ResourcePolicy, TlsPolicy } from './policy.ts';

/** Every resource's policy (ids: only those; a missing id is simply absent: deleted). */
export async function loadPolicies(db: Db, sealer: Sealer, ids?: number[]): Promise<ResourcePolicy[]> {
  const resources = ids === undefined ? await listAllResources(db) : await listResourcesById(db, ids);
  const details = await resourceDetails(db, resources.map((r) => r.id));
  const released = await releasedHosts(db, resources, details);
  const challenges = await acmeChallengesOf(db, resources.map((r) => r.id), new Date().toISOString());
  const none: ResourceDetails = { aliases: [], origins: [], rules: [], lists: [] };
  return resources.map((r) => {
    const policy = policyOf(r, details.get(r.id) ?? none, released.get(r.id) ?? [], sealer);
    const pending = challenges.get(r.id);
    // Absent rather than empty: a policy without challenges is the same JSON before and after an order.
    if (pending !== undefined) policy.acmeChallenges = pending.map((c) => ({ token: c.token, keyAuthorization: c.key_authorization }));
    return policy;
  });
}

/** `10.0.0.1:8080` → host 10.0.0.1, port 8080; `[2001:db8::1]:443`; `origin.example`. */
export function splitOrigin(data: string): { host: string; port: number | undefined } {
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(data);
  if (bracketed !== null) return { host: bracketed[1] ?? '', port: bracketed[2] === undefined ? undefined : Number(bracketed[2]) };
  const colons = data.split(':').length - 1;
  // Bare IPv6 (the API keeps IPv6 without a port unbracketed).
  if (colons !== 1) return { host: data, port: undefined };
  const [host = '', port = ''] = data.split(':');
  return { host, port: Number(port) };
}

function tlsOf(row: ResourceRow, sealer: Sealer): TlsPolicy | undefined {
  if ((row.ssl_type !== 'custom' && row.ssl_type !== 'le') || row.ssl_crt === null || row.ssl_key_sealed === null) return undefined;
  return { kind: row.ssl_type, chain: row.ssl_crt, key: sealer.open(row.ssl_key_sealed, tlsKeyContext(row.id)).toString(), expires: row.ssl_expire };
}

function policyOf(row: ResourceRow, details: ResourceDetails, released: string[], sealer: Sealer): ResourcePolicy {
  const settings: Settings = { ...settingDefaults, ...(JSON.parse(row.settings) as Partial<Settings>) };
  const hosts = [row.name, ...details.aliases.map((a) => a.alias_data)].filter((h) => !released.includes(h));
  const origins: OriginPolicy[] = details.origins.map((o) => ({ id: o.id, ...splitOrigin(o.origin_data), weight: o.origin_weight, mode: o.origin_mode as OriginMode }));
  return {
    id: row.id,
    accountId: row.account_id,
    name: row.name,
    hosts,
    served: settings.service_enable === 1 && hosts.length > 0 && origins.some((o) => o.mode !== 'down'),
    settings,
    origins,
    rules: details.rules.map((r) => ({ method: r.method, path: r.path, value: r.value, testCookie: r.test_cookie === 1 })),
    whitelist: details.lists.filter((l) => l.kind === 'white').map((l) => l.data),
    blacklist: details.lists.filter((l) => l.kind === 'black').map((l) => l.data),
    tls: tlsOf(row, sealer),
    wantsManagedCertificate: row.ssl_type === 'le',
  };
}
