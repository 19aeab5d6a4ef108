// One object of every kind an API path can name (a zone and an RRset in it, a user, an API token, a
// protected resource, a network mapping), made through the API in an account, and the value each
// path parameter of the OpenAPI document takes to name them: what the document-wide sweeps
// (bad-input, authorization) send their requests at.
import assert from 'node:assert/strict';
import { call } from './http.ts';

export interface PathObjects {
  /** Each path parameter's value naming this account's object (`{zoneName}`: the zone, `{resource_id}`: the resource, ...). */
  values: Record<string, string>;
  /** The GETs that read every object back, for comparing before and after. */
  reads: string[];
}

/** Makes the objects in the account `auth` acts for (`accountId`), under the zone `zone`, made here. */
export async function makePathObjects(url: string, auth: string, accountId: number, zone: string): Promise<PathObjects> {
  const made = async (path: string, body: unknown) => {
    const response = await call(url, 'POST', path, { auth, body });
    assert.ok(response.status === 200 || response.status === 201, `POST ${path}: ${String(response.status)} ${response.text}`);
    return response.body as { id: number };
  };
  const label = zone.split('.')[0] ?? 'x';
  await made('/dns/v2/zones', { name: zone });
  await made(`/dns/v2/zones/${zone}/www.${zone}/A`, { ttl: 60, resource_records: [{ content: ['192.0.2.1'] }] });
  const user = await made('/iam/users', { email: `user@${zone}`, password: 'user password 1' });
  const token = await made(`/iam/v2/clients/${String(accountId)}/tokens`, { name: label });
  const resource = await made('/security/resources', { name: `site.${zone}`, origins: [{ origin_data: '192.0.2.9', origin_weight: 1, origin_mode: 'primary' }] });
  const mapping = await made('/dns/v2/network-mappings', { name: label, mapping: [{ tags: ['a'], cidr4: ['192.0.2.0/24'] }] });
  return {
    values: {
      name: zone, zoneName: zone, rrsetName: `www.${zone}`, rrsetType: 'A', userId: String(user.id), clientId: String(accountId),
      tokenId: String(token.id), resource_id: String(resource.id), id: String(mapping.id), key: String(mapping.id),
    },
    reads: [
      `/dns/v2/zones/${zone}`, `/dns/v2/zones/${zone}/rrsets`, `/iam/users/${String(user.id)}`, `/iam/v2/clients/${String(accountId)}/tokens/${String(token.id)}`,
      `/security/resources/${String(resource.id)}`, `/dns/v2/network-mappings/${String(mapping.id)}`,
    ],
  };
}
