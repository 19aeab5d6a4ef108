// Protected web resources (/security/resources) through the HTTP API: both read shapes field by field,
// defaults, validation (each refusal names its field and changes nothing), host names unique across
// resources and accounts, PUT replacing lists with stable entry ids, custom certificates (the private
// key never in a response, a log line or plain text at rest), isolation, roles, change events and
// hostile input.
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { assertError } from '../support/assertions.ts';
import { encryptedKey, pemBodyLines, privateKey, selfSignedCertificate } from '../support/certificates.ts';
import { engines } from '../support/engines.ts';
import { apiKey, bearer, call, login, type RequestOptions, type Response } from '../support/http.ts';
import { adminEmail, adminPassword, startService, type Service } from '../support/service.ts';
import { waitFor } from '../support/wait.ts';

const publicIp = '203.0.113.7';
const base = '/security/resources';
const notFoundBody = { error: 'resource is not found', code: 'not_found' };

// --- The contract's read shapes -------------------------------------------------------------------

type Kind = 'integer' | 'string' | 'boolean' | 'array' | 'timestamp';
const timestamp = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

const listShape: Record<string, Kind> = {
  id: 'integer', name: 'string', active: 'boolean', client: 'integer', enabled: 'boolean', created: 'timestamp', updated: 'timestamp',
  is_waf_enabled: 'boolean', is_redirect_to_https_enabled: 'boolean', status: 'string', service_id: 'integer', service_ip: 'string',
  aliases: 'array', origins: 'array', rate_limier_rules: 'array', blacklists: 'array', whitelists: 'array',
  service_https2http: 'integer', service_http2: 'integer', service_ssl_expire: 'integer', service_iphash: 'integer',
  service_enable: 'integer', service_geoip_mode: 'integer', service_geoip_list: 'string', service_methods: 'string',
  service_forcessl: 'integer', service_wwwredir: 'integer', service_cdn: 'integer', service_cdn_host: 'string',
  service_cdn_proxy_host: 'string', service_stream: 'integer', service_global_whitelist: 'integer',
};
const singleOnly: Record<string, Kind> = { service_botprotect: 'integer', service_hsts: 'integer', service_waf: 'string', service_client_id: 'integer' };
const entryShapes: Record<string, Record<string, Kind>> = {
  aliases: { id: 'integer', alias_id: 'integer', alias_data: 'string', alias_ssl_expire: 'integer' },
  origins: { id: 'integer', origin_id: 'integer', origin_data: 'string', origin_weight: 'integer', origin_mode: 'string' },
  rate_limier_rules: { method: 'string', path: 'string', value: 'integer', test_cookie: 'boolean' },
  blacklists: { id: 'integer', blacklist_id: 'integer', blacklist_data: 'string' },
  whitelists: { id: 'integer', whitelist_id: 'integer', whitelist_data: 'string' },
};
const entryIds = [['aliases', 'alias_id'], ['origins', 'origin_id'], ['blacklists', 'blacklist_id'], ['whitelists', 'whitelist_id']] as const;
/** Beyond the contract's read shape the service returns `ssl_type`, so that a GET echoed back keeps the TLS mode. */
const extraFields = ['ssl_type'];

function isKind(kind: Kind, value: unknown): boolean {
  switch (kind) {
    case 'integer': return Number.isInteger(value);
    case 'array': return Array.isArray(value);
    case 'timestamp': return typeof value === 'string' && timestamp.test(value) && !Number.isNaN(Date.parse(value));
    default: return typeof value === kind;
  }
}

function assertShape(value: Record<string, unknown>, shape: Record<string, Kind>, where: string, extra: string[] = []): void {
  assert.deepEqual(Object.keys(value).filter((k) => !extra.includes(k)).sort(), Object.keys(shape).sort(), `${where}: field names`);
  for (const [key, kind] of Object.entries(shape)) assert.ok(isKind(kind, value[key]), `${where}.${key} is not ${kind}: ${JSON.stringify(value[key])}`);
}

/** Every field of the single or list shape, each nested entry, and the values derived from others. */
function assertResource(r: any, shape: 'single' | 'list', owner: number): void {
  assertShape(r, shape === 'single' ? { ...listShape, ...singleOnly } : listShape, `${shape} ${String(r.name)}`, extraFields);
  assert.ok(r.ssl_type === null || r.ssl_type === 'custom' || r.ssl_type === 'le', `ssl_type ${String(r.ssl_type)}`);
  for (const [list, entry] of Object.entries(entryShapes)) {
    for (const [i, e] of (r[list] as Record<string, unknown>[]).entries()) assertShape(e, entry, `${String(r.name)} ${list}[${i}]`);
  }
  for (const [list, idKey] of entryIds) for (const e of r[list]) assert.equal(e.id, e[idKey], `${list}: id equals ${idKey}`);
  assert.equal(r.client, owner);
  assert.equal(r.service_ip, publicIp);
  assert.ok(r.updated >= r.created, 'updated is not before created');
  assert.equal(r.service_forcessl, r.is_redirect_to_https_enabled ? 1 : 0, 'service_forcessl mirrors is_redirect_to_https_enabled');
  if (shape === 'single') {
    assert.equal(r.service_client_id, owner);
    assert.equal(r.service_waf, r.is_waf_enabled ? 'block' : 'off');
  }
}

/** The single shape without its four single-only fields: what the list shows. */
const asListed = (r: any) => {
  const { service_botprotect, service_hsts, service_waf, service_client_id, ...rest } = r;
  return rest;
};

const defaults = {
  is_waf_enabled: false, is_redirect_to_https_enabled: false, service_enable: 1, service_https2http: 0, service_http2: 1,
  service_iphash: 0, service_wwwredir: 0, service_cdn: 0, service_stream: 0, service_global_whitelist: 0, service_hsts: 0,
  service_botprotect: 0, service_geoip_mode: 0, service_geoip_list: '', service_methods: '', service_cdn_host: '',
  service_cdn_proxy_host: '', service_forcessl: 0, service_waf: 'off', service_ssl_expire: 0, ssl_type: null,
  enabled: true, status: 'active', aliases: [], origins: [], rate_limier_rules: [], blacklists: [], whitelists: [],
};
const flags = ['service_enable', 'service_https2http', 'service_http2', 'service_iphash', 'service_wwwredir', 'service_cdn',
  'service_stream', 'service_global_whitelist', 'service_hsts'];

// --- Certificates, made once ----------------------------------------------------------------------

const tlsName = 'tls.example';
const certificate = selfSignedCertificate(tlsName, { sans: [tlsName, `*.${tlsName}`] });
const certificateExpire = Date.parse(new X509Certificate(certificate.crt).validTo) / 1000;
const otherKey = privateKey();
const lockedKey = encryptedKey(certificate.key);
const expired = selfSignedCertificate(tlsName, {
  sans: [tlsName, `*.${tlsName}`],
  notBefore: new Date('2020-01-01T00:00:00Z'),
  notAfter: new Date('2020-02-01T00:00:00Z'),
});
const secretLines = [certificate.key, otherKey, lockedKey, expired.key].flatMap(pemBodyLines);

for (const engine of engines()) {
  describe(`security resources (${engine})`, () => {
    let service: Service;
    let url: string;
    let admin: string;
    let accountA: number;
    /** Every response of the service, to check that none carries a private key. */
    const seen: Response[] = [];

    before(async () => {
      service = await startService({ engine, env: { EDGEPLANE_PUBLIC_IPV4: publicIp } });
      url = service.url;
      admin = bearer((await login(url, adminEmail, adminPassword)).access);
      accountA = (await call(url, 'GET', '/iam/clients/me', { auth: admin })).body.id;
    });
    after(() => service.dispose());

    const send = async (method: string, path: string, options: RequestOptions = {}) => {
      const response = await call(url, method, path, { auth: admin, ...options });
      seen.push(response);
      return response;
    };
    const at = (id: number | string) => `${base}/${String(id)}`;
    const create = async (body: unknown, owner = accountA, auth = admin) => {
      const r = await send('POST', base, { body, auth });
      assert.equal(r.status, 201, r.text);
      assertResource(r.body, 'single', owner);
      return r.body;
    };
    const get = async (id: number, owner = accountA, auth = admin) => {
      const r = await send('GET', at(id), { auth });
      assert.equal(r.status, 200, r.text);
      assertResource(r.body, 'single', owner);
      return r.body;
    };
    const list = async (owner = accountA, auth = admin) => {
      const r = await send('GET', base, { auth });
      assert.equal(r.status, 200, r.text);
      assert.ok(Array.isArray(r.body), 'the list is a bare array');
      for (const item of r.body) assertResource(item, 'list', owner);
      return r.body;
    };
    const put = async (id: number, body: unknown) => {
      const r = await send('PUT', at(id), { body });
      assert.equal(r.status, 200, r.text);
      assertResource(r.body, 'single', accountA);
      assert.deepEqual(await get(id), r.body, 'the PUT answer is what a GET shows');
      return r.body;
    };
    const remove = async (id: number) => {
      const r = await send('DELETE', at(id));
      assert.equal(r.status, 204, r.text);
    };
    /** A 400 invalid_input naming exactly `field`. */
    const assertInvalid = (r: Response<any>, field: string, what: unknown) => {
      assertError(r, 400, 'invalid_input');
      assert.deepEqual(Object.keys(r.body.fields ?? {}), [field], `${JSON.stringify(what)}: ${r.text}`);
    };
    /** PUT refused with 400 naming `field`; the stored document is unchanged. */
    const refusedPut = async (id: number, body: unknown, field: string) => {
      const before = await get(id);
      assertInvalid(await send('PUT', at(id), { body }), field, body);
      assert.deepEqual(await get(id), before, 'a refused PUT changes nothing');
    };
    /** POST refused with 400 naming `field`; nothing is created. */
    const refusedPost = async (body: unknown, field: string) => {
      const before = await list();
      assertInvalid(await send('POST', base, { body }), field, body);
      assert.deepEqual(await list(), before, 'a refused POST creates nothing');
    };
    const assertConflict = (r: Response) => assertError(r, 409, 'conflict');

    test('POST 201, list 200 (list shape), GET 200 (single shape), PUT 200, DELETE 204, then 404', async () => {
      assert.deepEqual(await list(), []);
      const created = await create({
        name: 'shop.example',
        aliases: [{ alias_data: 'www.shop.example' }],
        origins: [{ origin_data: '192.0.2.10' }],
        rate_limier_rules: [{ method: 'get', path: '/login', value: 10 }],
        is_waf_enabled: true,
      });
      assert.equal(created.name, 'shop.example');
      assert.equal(created.is_waf_enabled, true);
      assert.equal(created.service_waf, 'block');
      assert.equal(created.status, 'active');
      assert.equal(created.enabled, true);
      assert.equal(created.active, true);
      assert.equal(created.created, created.updated);
      assert.ok(Math.abs(Date.parse(created.created) - Date.now()) < 60_000, 'created is now');
      assert.deepEqual(created.aliases.map((a: any) => [a.alias_data, a.alias_ssl_expire]), [['www.shop.example', 0]]);
      assert.deepEqual(created.origins.map((o: any) => [o.origin_data, o.origin_weight, o.origin_mode]), [['192.0.2.10', 1, 'primary']]);
      assert.deepEqual(created.rate_limier_rules, [{ method: 'GET', path: '/login', value: 10, test_cookie: false }]);
      assert.deepEqual([created.blacklists, created.whitelists], [[], []]);

      const listed = await list();
      assert.equal(listed.length, 1);
      for (const key of Object.keys(singleOnly)) assert.ok(!(key in listed[0]), `the list omits ${key}`);
      assert.deepEqual(listed[0], asListed(created));
      assert.deepEqual(await get(created.id), created);

      await new Promise((resolve) => setTimeout(resolve, 5));
      const changed = await put(created.id, { ...created, name: 'Shop.Example', is_waf_enabled: false, service_hsts: 1 });
      assert.equal(changed.id, created.id);
      assert.equal(changed.created, created.created);
      assert.ok(changed.updated > created.updated, 'updated moves on a PUT');
      assert.deepEqual([changed.is_waf_enabled, changed.service_waf, changed.service_hsts], [false, 'off', 1]);
      assert.deepEqual(changed.aliases, created.aliases);

      const deleted = await send('DELETE', at(created.id));
      assert.equal(deleted.status, 204);
      assert.equal(deleted.text, '');
      for (const method of ['GET', 'PUT', 'DELETE']) {
        const r = await send(method, at(created.id), method === 'PUT' ? { body: { name: 'shop.example' } } : {});
        assertError(r, 404, 'not_found');
        assert.deepEqual(r.body, notFoundBody);
      }
      assert.deepEqual(await list(), []);
      // The host names are free again.
      await remove((await create({ name: 'shop.example', aliases: [{ alias_data: 'www.shop.example' }] })).id);
    });

    test('ids are never reused: a deleted resource\'s or removed entry\'s id does not come back', async () => {
      const first = await create({ name: 'reuse.example', aliases: [{ alias_data: 'www.reuse.example' }], blacklists: [{ blacklist_data: '192.0.2.1' }] });
      // Remove the newest entries, then add others.
      const emptied = await put(first.id, { name: 'reuse.example' });
      assert.deepEqual([emptied.aliases, emptied.blacklists], [[], []]);
      const refilled = await put(first.id, { name: 'reuse.example', aliases: [{ alias_data: 'new.reuse.example' }], blacklists: [{ blacklist_data: '192.0.2.2' }] });
      // Delete the newest resource, then create another: a stale id must not reach the new one.
      await remove(first.id);
      const second = await create({ name: 'reuse2.example' });
      const reused = {
        alias: refilled.aliases[0].id === first.aliases[0].id,
        blacklist: refilled.blacklists[0].id === first.blacklists[0].id,
        resource: second.id === first.id,
      };
      await remove(second.id);
      assert.deepEqual(reused, { alias: false, blacklist: false, resource: false }, 'ids reused');
    });

    test('defaults; service_methods integer or string, returned as a string; service_forcessl and service_waf follow the booleans', async () => {
      const r = await create({ name: 'defaults.example' });
      for (const [key, value] of Object.entries(defaults)) assert.deepEqual(r[key], value, key);
      assert.equal(r.active, false, 'no origin to send traffic to');

      assert.equal((await put(r.id, { name: 'defaults.example', service_methods: 5 })).service_methods, '5');
      assert.equal((await put(r.id, { name: 'defaults.example', service_methods: '7' })).service_methods, '7');
      const https = await put(r.id, { name: 'defaults.example', is_redirect_to_https_enabled: true, is_waf_enabled: true });
      assert.deepEqual([https.is_redirect_to_https_enabled, https.service_forcessl, https.service_waf], [true, 1, 'block']);
      const twin = await put(r.id, { name: 'defaults.example', service_forcessl: 1 });
      assert.deepEqual([twin.is_redirect_to_https_enabled, twin.service_forcessl], [true, 1], 'service_forcessl alone sets the boolean');
      const off = await put(r.id, { name: 'defaults.example', service_forcessl: '0' });
      assert.deepEqual([off.is_redirect_to_https_enabled, off.service_forcessl], [false, 0]);
      // PUT replaces the whole document: what is not sent is back to its default.
      const reset = await put(r.id, { name: 'defaults.example' });
      for (const [key, value] of Object.entries(defaults)) assert.deepEqual(reset[key], value, key);
      await remove(r.id);
    });

    test('settings: 0/1 flags, service_botprotect 0|4, geo mode and list, ssl_type; bad values are 400 and change nothing', async () => {
      const r = await create({ name: 'settings.example', origins: [{ origin_data: '192.0.2.1' }] });
      const body = (patch: Record<string, unknown>) => ({ name: 'settings.example', origins: [{ origin_data: '192.0.2.1' }], ...patch });
      for (const flag of flags) {
        for (const value of [0, 1]) assert.equal((await put(r.id, body({ [flag]: value })))[flag], value, `${flag} ${value}`);
        assert.equal((await put(r.id, body({ [flag]: String(1 - (defaults as any)[flag]) })))[flag], 1 - (defaults as any)[flag], `${flag} as a string`);
        await refusedPut(r.id, body({ [flag]: 2 }), flag);
      }
      const disabled = await put(r.id, body({ service_enable: 0 }));
      assert.deepEqual([disabled.enabled, disabled.status, disabled.active], [false, 'disabled', false]);

      await refusedPut(r.id, body({ service_forcessl: 2 }), 'service_forcessl');
      await refusedPut(r.id, body({ is_waf_enabled: 'yes' }), 'is_waf_enabled');
      await refusedPut(r.id, body({ is_redirect_to_https_enabled: 1 }), 'is_redirect_to_https_enabled');
      for (const value of [0, 4]) assert.equal((await put(r.id, body({ service_botprotect: value }))).service_botprotect, value);
      for (const value of [1, 2, 5]) await refusedPut(r.id, body({ service_botprotect: value }), 'service_botprotect');

      for (const mode of [0, 1, 2]) assert.equal((await put(r.id, body({ service_geoip_mode: mode }))).service_geoip_mode, mode);
      for (const mode of [3, -1]) await refusedPut(r.id, body({ service_geoip_mode: mode }), 'service_geoip_mode');
      assert.equal((await put(r.id, body({ service_geoip_list: 'de, fr,Us' }))).service_geoip_list, 'DE,FR,US');
      assert.equal((await put(r.id, body({ service_geoip_list: 'NL' }))).service_geoip_list, 'NL');
      for (const list of ['XX', 'de,XX', 'DEU', 5]) await refusedPut(r.id, body({ service_geoip_list: list }), 'service_geoip_list');

      assert.equal((await put(r.id, body({ ssl_type: 'le' }))).ssl_type, 'le');
      assert.equal((await put(r.id, body({ ssl_type: '' }))).ssl_type, null);
      for (const type of ['letsencrypt', 'CUSTOM', 1]) await refusedPut(r.id, body({ ssl_type: type }), 'ssl_type');
      await refusedPut(r.id, body({ ssl_type: 'custom' }), 'service_ssl_crt');
      await remove(r.id);
    });

    test('name and aliases are host names: lower case, no trailing dot; bad ones are 400 naming the field', async () => {
      const valid: [string, string][] = [
        ['Sub_Dom-1.Example.COM.', 'sub_dom-1.example.com'],
        ['bücher.example', 'xn--bcher-kva.example'],
        [`${'a'.repeat(63)}.example`, `${'a'.repeat(63)}.example`],
      ];
      const invalid: unknown[] = [
        '', 'has space.example', 'bad..example', '-bad.example', 'bad-.example', 'bad!.example', '*.wild.example',
        `${'a'.repeat(64)}.example`, `${Array.from({ length: 5 }, () => 'a'.repeat(50)).join('.')}.example`, 42,
      ];
      for (const [name, canonical] of valid) {
        const r = await create({ name });
        assert.equal(r.name, canonical);
        await remove(r.id);
      }
      for (const name of invalid) await refusedPost({ name }, 'name');
      await refusedPost({}, 'name');

      const r = await create({ name: 'names.example' });
      for (const [alias, canonical] of valid) {
        assert.deepEqual((await put(r.id, { name: 'names.example', aliases: [{ alias_data: alias }] })).aliases.map((a: any) => a.alias_data), [canonical]);
      }
      for (const alias of invalid) await refusedPut(r.id, { name: 'names.example', aliases: [{ alias_data: alias }] }, 'aliases[0].alias_data');
      await refusedPut(r.id, { name: 'names.example', aliases: [{}] }, 'aliases[0].alias_data');
      await refusedPut(r.id, { name: 'names.example', aliases: [{ alias_data: 'NAMES.example.' }] }, 'aliases[0].alias_data');
      await refusedPut(r.id, { name: 'names.example', aliases: [{ alias_data: 'www.names.example' }, { alias_data: 'WWW.names.example' }] }, 'aliases[1].alias_data');
      await refusedPut(r.id, { name: 'names.example', aliases: { alias_data: 'www.names.example' } }, 'aliases');
      await refusedPut(r.id, { name: 'bad..example' }, 'name');
      await refusedPut(r.id, { aliases: [] }, 'name');
      await refusedPost({ name: 'new.example', aliases: [{ alias_data: 'new.example' }] }, 'aliases[0].alias_data');
      await remove(r.id);
    });

    test('a name or alias held by another resource is 409 conflict, in any case', async () => {
      const other = await create({ name: 'taken.example', aliases: [{ alias_data: 'www.taken.example' }] });
      const mine = await create({ name: 'mine.example', aliases: [{ alias_data: 'www.mine.example' }] });
      const before = await list();
      for (const alias of ['taken.example', 'www.taken.example', 'WWW.Taken.Example.']) {
        assertConflict(await send('PUT', at(mine.id), { body: { name: 'mine.example', aliases: [{ alias_data: alias }] } }));
        assertConflict(await send('POST', base, { body: { name: 'third.example', aliases: [{ alias_data: alias }] } }));
        assertConflict(await send('POST', base, { body: { name: alias } }));
        assertConflict(await send('PUT', at(mine.id), { body: { name: alias } }));
      }
      assert.deepEqual(await list(), before, 'conflicts change nothing');
      // A resource may take its own alias as its name.
      const renamed = await put(mine.id, { name: 'www.mine.example', aliases: [{ alias_data: 'mine.example' }] });
      assert.deepEqual([renamed.name, renamed.aliases[0].alias_data], ['www.mine.example', 'mine.example']);
      await remove(mine.id);
      await remove(other.id);
    });

    test('origins: addresses and host names with an optional port, weight 1-100, mode primary|backup|down', async () => {
      const r = await create({ name: 'origins.example' });
      const body = (origins: unknown[]) => ({ name: 'origins.example', origins });
      const valid: [string, string][] = [
        ['192.0.2.1', '192.0.2.1'],
        ['192.0.2.1:8080', '192.0.2.1:8080'],
        ['2001:DB8::1', '2001:db8::1'],
        ['[2001:db8::1]:8443', '[2001:db8::1]:8443'],
        ['host.example:8080', 'host.example:8080'],
        ['Origin.Example', 'origin.example'],
      ];
      const accepted = await put(r.id, body(valid.map(([origin_data]) => ({ origin_data }))));
      assert.deepEqual(accepted.origins.map((o: any) => o.origin_data), valid.map(([, canonical]) => canonical));
      for (const origin_data of ['1.2.3.4:70000', '1.2.3.4:0', 'not a host', '', '[2001:db8::1', 'a..example', 7]) {
        await refusedPut(r.id, body([{ origin_data }]), 'origins[0].origin_data');
      }
      await refusedPut(r.id, body([{ origin_weight: 5 }]), 'origins[0].origin_data');

      const weights = await put(r.id, body([{ origin_data: '192.0.2.1', origin_weight: 1 }, { origin_data: '192.0.2.2', origin_weight: 100 }]));
      assert.deepEqual(weights.origins.map((o: any) => o.origin_weight), [1, 100]);
      for (const weight of [0, 101, -1, 1.5, 'heavy']) await refusedPut(r.id, body([{ origin_data: '192.0.2.1', origin_weight: weight }]), 'origins[0].origin_weight');

      const modes = await put(r.id, body(['primary', 'backup', 'down'].map((origin_mode, i) => ({ origin_data: `192.0.2.${i + 1}`, origin_mode }))));
      assert.deepEqual(modes.origins.map((o: any) => o.origin_mode), ['primary', 'backup', 'down']);
      for (const mode of ['standby', 'PRIMARY', '']) await refusedPut(r.id, body([{ origin_data: '192.0.2.1', origin_mode: mode }]), 'origins[0].origin_mode');
      // Only origins that are down: nothing to send traffic to.
      assert.equal((await put(r.id, body([{ origin_data: '192.0.2.1', origin_mode: 'down' }]))).active, false);
      await remove(r.id);
    });

    test('an origin that is not a valid IPv4 address (999.1.1.1) is refused', async () => {
      const r = await create({ name: 'origin-ip.example' });
      try {
        await refusedPut(r.id, { name: 'origin-ip.example', origins: [{ origin_data: '999.1.1.1' }] }, 'origins[0].origin_data');
      } finally {
        await remove(r.id);
      }
    });

    test('rate rules: method GET..OPTIONS or * in any case, path (a leading / added), value 0-100000, test_cookie boolean', async () => {
      const r = await create({ name: 'rules.example' });
      const body = (rules: unknown[]) => ({ name: 'rules.example', rate_limier_rules: rules });
      const methods = ['get', 'Head', 'POST', 'put', 'pAtCh', 'delete', 'OPTIONS', '*'];
      const accepted = await put(r.id, body(methods.map((method, i) => ({ method, path: i % 2 === 0 ? '/' : '/api/*', value: i, test_cookie: i % 2 === 0 }))));
      assert.deepEqual(accepted.rate_limier_rules, methods.map((method, i) => ({
        method: method.toUpperCase(), path: i % 2 === 0 ? '/' : '/api/*', value: i, test_cookie: i % 2 === 0,
      })));
      const limits = await put(r.id, body([{ method: 'GET', path: '/a', value: 0 }, { method: 'GET', path: '/b', value: 100_000 }]));
      assert.deepEqual(limits.rate_limier_rules.map((x: any) => [x.value, x.test_cookie]), [[0, false], [100_000, false]]);

      const rule = (patch: Record<string, unknown>) => body([{ method: 'GET', path: '/', value: 1, ...patch }]);
      for (const method of ['TRACE', 'trace', 'CONNECT', '', 1]) await refusedPut(r.id, rule({ method }), 'rate_limier_rules[0].method');
      for (const path of ['has space/', '/a b', 5]) await refusedPut(r.id, rule({ path }), 'rate_limier_rules[0].path');
      // The provider's own example writes `helloworld`: read as `/helloworld`, as an empty path is `/`.
      const relative = await put(r.id, body([{ method: 'GET', path: 'helloworld', value: 1 }, { method: 'GET', path: '', value: 2 }]));
      assert.deepEqual(relative.rate_limier_rules.map((x: any) => x.path), ['/helloworld', '/']);
      for (const value of [100_001, -1, 1.5, 'many']) await refusedPut(r.id, rule({ value }), 'rate_limier_rules[0].value');
      for (const test_cookie of ['yes', 1]) await refusedPut(r.id, rule({ test_cookie }), 'rate_limier_rules[0].test_cookie');
      await remove(r.id);
    });

    test('blacklists and whitelists: addresses or CIDRs, canonicalised; anything else is 400', async () => {
      const r = await create({ name: 'lists.example' });
      const entries: [string, string][] = [
        ['10.1.2.3/8', '10.0.0.0/8'],
        ['192.0.2.7', '192.0.2.7'],
        ['2001:DB8::1/32', '2001:db8::/32'],
        ['2001:db8:0:0::5', '2001:db8::5'],
      ];
      for (const [list, key] of [['blacklists', 'blacklist_data'], ['whitelists', 'whitelist_data']] as const) {
        const accepted = await put(r.id, { name: 'lists.example', [list]: entries.map(([data]) => ({ [key]: data })) });
        assert.deepEqual(accepted[list].map((e: any) => e[key]), entries.map(([, canonical]) => canonical));
        for (const data of ['10.0.0.0/33', 'nope', '', '999.1.1.1', '10.0.0.0/', 7]) {
          await refusedPut(r.id, { name: 'lists.example', [list]: [{ [key]: data }] }, `${list}[0].${key}`);
        }
      }
      await remove(r.id);
    });

    test('PUT replaces lists, keeps the ids of unchanged entries, and ignores read-only and unknown fields', async () => {
      const r = await create({
        name: 'replace.example',
        aliases: [{ alias_data: 'a1.replace.example' }, { alias_data: 'a2.replace.example' }],
        origins: [{ origin_data: '192.0.2.1', origin_weight: 10 }, { origin_data: '192.0.2.2', origin_mode: 'backup' }],
        rate_limier_rules: [{ method: 'GET', path: '/a', value: 1 }, { method: 'POST', path: '/b', value: 2, test_cookie: true }],
        blacklists: [{ blacklist_data: '198.51.100.1' }, { blacklist_data: '198.51.100.2' }],
        whitelists: [{ whitelist_data: '203.0.113.0/24' }],
      });
      const oldIds = (list: string) => r[list].map((e: any) => e.id as number);
      const bogus = 987_654;
      const edited = {
        ...r,
        id: bogus, client: bogus, created: '2000-01-01T00:00:00.000Z', updated: '2000-01-01T00:00:00.000Z', service_ip: '198.51.100.99',
        status: 'disabled', service_id: bogus, service_client_id: bogus, foo: 1,
        aliases: [{ id: bogus, alias_id: bogus, alias_data: 'a3.replace.example', foo: 1 }, { ...r.aliases[1], id: bogus + 1, alias_id: bogus + 1 }],
        origins: [{ origin_data: '192.0.2.3' }, { ...r.origins[0], id: bogus, origin_id: bogus, origin_weight: 50 }],
        rate_limier_rules: [{ method: 'PUT', path: '/c', value: 3, foo: 1 }],
        blacklists: [{ blacklist_data: '198.51.100.3' }, { blacklist_id: bogus, blacklist_data: '198.51.100.2' }],
        whitelists: [],
      };
      const changed = await put(r.id, edited);
      assert.deepEqual(
        [changed.id, changed.client, changed.created, changed.service_ip, changed.status, changed.service_id, changed.service_client_id],
        [r.id, accountA, r.created, publicIp, 'active', r.service_id, accountA],
        'read-only fields are ignored',
      );
      assert.ok(!('foo' in changed));
      assert.deepEqual(changed.aliases.map((a: any) => a.alias_data), ['a3.replace.example', 'a2.replace.example']);
      assert.equal(changed.aliases[1].id, r.aliases[1].id, 'an unchanged alias keeps its id');
      assert.deepEqual(changed.origins.map((o: any) => [o.origin_data, o.origin_weight, o.origin_mode]), [['192.0.2.3', 1, 'primary'], ['192.0.2.1', 50, 'primary']]);
      assert.equal(changed.origins[1].id, r.origins[0].id, 'an origin with the same address keeps its id');
      assert.deepEqual(changed.rate_limier_rules, [{ method: 'PUT', path: '/c', value: 3, test_cookie: false }]);
      assert.deepEqual(changed.blacklists.map((b: any) => b.blacklist_data), ['198.51.100.3', '198.51.100.2']);
      assert.equal(changed.blacklists[1].id, r.blacklists[1].id, 'an unchanged blacklist entry keeps its id');
      assert.deepEqual(changed.whitelists, []);
      for (const [list, e] of [['aliases', changed.aliases[0]], ['origins', changed.origins[0]], ['blacklists', changed.blacklists[0]]]) {
        assert.ok(!oldIds(list).includes(e.id) && e.id !== bogus, `a new entry gets a new id: ${JSON.stringify(e)}`);
      }
      // A removed alias is free for another resource.
      const taker = await create({ name: 'a1.replace.example' });
      // Echoing the GET body back changes nothing but `updated`.
      const again = await put(r.id, await get(r.id));
      assert.deepEqual({ ...again, updated: '' }, { ...changed, updated: '' });
      await remove(taker.id);
      await remove(r.id);
    });

    test('null members are treated as absent', async () => {
      const fresh = await create({
        name: 'nulls.example', aliases: null, is_waf_enabled: null, service_methods: null, ssl_type: null,
        rate_limier_rules: [{ method: 'GET', path: '/', value: 1, test_cookie: null }],
        origins: [{ origin_data: '192.0.2.1', origin_weight: null, origin_mode: null }],
      });
      assert.deepEqual([fresh.aliases, fresh.is_waf_enabled, fresh.service_methods, fresh.ssl_type], [[], false, '', null]);
      assert.equal(fresh.rate_limier_rules[0].test_cookie, false);
      assert.deepEqual([fresh.origins[0].origin_weight, fresh.origins[0].origin_mode], [1, 'primary']);

      const full = await put(fresh.id, { name: 'nulls.example', aliases: [{ alias_data: 'www.nulls.example' }], is_waf_enabled: true, service_geoip_mode: 2, service_geoip_list: 'DE' });
      const cleared = await put(fresh.id, {
        ...full, aliases: null, is_waf_enabled: null, service_geoip_mode: null, service_geoip_list: null, service_cdn_host: null,
        service_ssl_crt: null, service_ssl_key: null, ssl_type: null, id: null, client: null,
      });
      assert.deepEqual([cleared.aliases, cleared.is_waf_enabled, cleared.service_geoip_mode, cleared.service_geoip_list, cleared.service_cdn_host], [[], false, 0, '', '']);
      await remove(fresh.id);
    });

    test('a custom certificate: expiry from the certificate, covered aliases, refusals, kept on echo, removed with ssl_type ""', async () => {
      const r = await create({
        name: tlsName,
        aliases: [{ alias_data: `www.${tlsName}` }, { alias_data: `a.b.${tlsName}` }, { alias_data: 'tls-other.example' }],
        origins: [{ origin_data: '192.0.2.1' }],
      });
      const expiries = (x: any) => x.aliases.map((a: any) => [a.alias_data, a.alias_ssl_expire]);
      const withCert = await put(r.id, { ...r, ssl_type: 'custom', service_ssl_crt: certificate.crt, service_ssl_key: certificate.key });
      assert.equal(withCert.ssl_type, 'custom');
      assert.equal(withCert.service_ssl_expire, certificateExpire);
      assert.deepEqual(expiries(withCert), [[`www.${tlsName}`, certificateExpire], [`a.b.${tlsName}`, 0], ['tls-other.example', 0]]);
      assert.equal((await list()).find((x) => x.id === r.id)?.service_ssl_expire, certificateExpire);

      // At rest: the certificate is there (we look in the right place), the key is not in plain text.
      const stored = await storedText(r.id);
      assert.ok(stored.includes(pemBodyLines(certificate.crt)[0]!), 'the stored certificate is found');
      for (const line of pemBodyLines(certificate.key)) assert.ok(!stored.includes(line), 'the private key is stored in plain text');

      const custom = (crt: string, key: string) => ({ ...withCert, ssl_type: 'custom', service_ssl_crt: crt, service_ssl_key: key });
      await refusedPut(r.id, custom(certificate.crt, otherKey), 'service_ssl_key');
      await refusedPut(r.id, custom(certificate.crt, lockedKey), 'service_ssl_key');
      await refusedPut(r.id, custom(expired.crt, expired.key), 'service_ssl_crt');
      await refusedPut(r.id, custom('not a certificate', certificate.key), 'service_ssl_crt');

      // Echoing the GET body (ssl_type "custom", no key) keeps the certificate.
      const echoed = await put(r.id, await get(r.id));
      assert.deepEqual([echoed.ssl_type, echoed.service_ssl_expire, expiries(echoed)], ['custom', certificateExpire, expiries(withCert)]);
      // Without ssl_type and without the PEM fields, too.
      const { ssl_type, ...withoutType } = echoed;
      assert.equal((await put(r.id, withoutType)).service_ssl_expire, certificateExpire);

      const off = await put(r.id, { ...echoed, ssl_type: '' });
      assert.deepEqual([off.ssl_type, off.service_ssl_expire, expiries(off).map((e: unknown[]) => e[1])], [null, 0, [0, 0, 0]]);
      assert.equal((await put(r.id, await get(r.id))).service_ssl_expire, 0, 'an echo after removal does not bring it back');
      await remove(r.id);
    });

    test('a custom certificate on create; a bad pair on create creates nothing', async () => {
      await refusedPost({ name: tlsName, ssl_type: 'custom', service_ssl_crt: certificate.crt, service_ssl_key: otherKey }, 'service_ssl_key');
      await refusedPost({ name: tlsName, ssl_type: 'custom', service_ssl_crt: expired.crt, service_ssl_key: expired.key }, 'service_ssl_crt');
      const r = await create({
        name: tlsName, aliases: [{ alias_data: `api.${tlsName}` }], ssl_type: 'custom', service_ssl_crt: certificate.crt, service_ssl_key: certificate.key,
      });
      assert.deepEqual([r.ssl_type, r.service_ssl_expire, r.aliases[0].alias_ssl_expire], ['custom', certificateExpire, certificateExpire]);
      await remove(r.id);
    });

    test('a custom certificate must cover the resource name: on create, on replace and when the resource is renamed', async () => {
      const pair = { ssl_type: 'custom', service_ssl_crt: certificate.crt, service_ssl_key: certificate.key };
      // tls.example and *.tls.example: neither other.example nor a name two labels below.
      for (const name of ['other.example', 'a.b.tls.example']) {
        const refused = await send('POST', base, { body: { name, origins: [{ origin_data: '192.0.2.1' }], ...pair } });
        assertInvalid(refused, 'service_ssl_crt', name);
        assert.match(refused.body.fields.service_ssl_crt, new RegExp(`does not cover .*${name.replaceAll('.', '\\.')}`));
      }
      assert.ok(!(await list()).some((x: { name: string }) => x.name === 'other.example' || x.name === 'a.b.tls.example'), 'nothing was created');
      const plain = await create({ name: 'uncovered.example', origins: [{ origin_data: '192.0.2.1' }] });
      await refusedPut(plain.id, { ...plain, ...pair }, 'service_ssl_crt');
      await remove(plain.id);
      // A wildcard covers one label; renaming within it keeps the certificate, renaming out of it is refused.
      const r = await create({ name: `shop.${tlsName}`, origins: [{ origin_data: '192.0.2.1' }], ...pair });
      assert.equal(r.ssl_type, 'custom');
      const renamed = await put(r.id, { ...r, name: `store.${tlsName}` });
      assert.equal(renamed.service_ssl_expire, certificateExpire);
      await refusedPut(r.id, { ...renamed, name: 'elsewhere.example' }, 'service_ssl_crt');
      await remove(r.id);
    });

    test('account B gets 404 for A\'s resource, does not list it, cannot take its names; A\'s resource is unchanged', async () => {
      const mine = await create({ name: 'private.example', aliases: [{ alias_data: 'www.private.example' }], origins: [{ origin_data: '192.0.2.1' }] });
      const account = await send('POST', '/iam/accounts', { body: { email: 'owner@b.example', password: 'b password 1' } });
      assert.equal(account.status, 201, account.text);
      const accountB = account.body.id as number;
      const b = bearer((await login(url, 'owner@b.example', 'b password 1')).access);

      for (const [method, body] of [['GET'], ['PUT', { name: 'private.example' }], ['PUT', { name: 'stolen.example' }], ['DELETE']] as const) {
        const r = await send(method, at(mine.id), { auth: b, ...(body ? { body } : {}) });
        assertError(r, 404, 'not_found');
        assert.deepEqual(r.body, notFoundBody, `${method} by account B`);
      }
      assert.deepEqual(await list(accountB, b), []);
      for (const body of [{ name: 'private.example' }, { name: 'WWW.private.example' }, { name: 'b.example', aliases: [{ alias_data: 'private.example' }] }]) {
        assertConflict(await send('POST', base, { auth: b, body }));
      }
      const theirs = await create({ name: 'b-own.example' }, accountB, b);
      assert.deepEqual((await list(accountB, b)).map((x) => x.id), [theirs.id]);
      assert.ok(!(await list()).some((x) => x.id === theirs.id), 'A does not list B\'s resource');
      assert.deepEqual((await send('GET', at(theirs.id))).body, notFoundBody);
      assert.deepEqual(await get(mine.id), mine, 'A\'s resource is unchanged');
      await remove(mine.id);
    });

    test('a Read-only token reads; POST, PUT and DELETE are 403', async () => {
      const r = await create({ name: 'readonly.example' });
      const clientId = (await send('GET', '/iam/clients/me')).body.id as number;
      const token = await send('POST', `/iam/v2/clients/${clientId}/tokens`, { body: { name: 'ro', client_user: { role: { name: 'Read-only' } } } });
      assert.equal(token.status, 201, token.text);
      const ro = apiKey(token.body.token);
      assert.ok((await list(accountA, ro)).some((x) => x.id === r.id));
      assert.deepEqual(await get(r.id, accountA, ro), r);
      assertError(await send('POST', base, { auth: ro, body: { name: 'ro-new.example' } }), 403, 'forbidden');
      assertError(await send('PUT', at(r.id), { auth: ro, body: { name: 'readonly.example', is_waf_enabled: true } }), 403, 'forbidden');
      assertError(await send('DELETE', at(r.id), { auth: ro }), 403, 'forbidden');
      assert.deepEqual(await get(r.id), r);
      assert.ok(!(await list()).some((x) => x.name === 'ro-new.example'));
      await remove(r.id);
    });

    test('POST, PUT and DELETE are announced on edgeplane_resource_changes', { skip: engine !== 'postgres' && 'SQLite has no NOTIFY: changes go to in-process subscribers only' }, async () => {
      const client = new pg.Client({ connectionString: service.env['EDGEPLANE_DATABASE_URL'] });
      await client.connect();
      try {
        const heard: unknown[] = [];
        client.on('notification', (n) => {
          if (n.channel === 'edgeplane_resource_changes') heard.push(JSON.parse(n.payload ?? 'null'));
        });
        await client.query('LISTEN edgeplane_resource_changes');
        const r = await create({ name: 'events.example' });
        await put(r.id, { name: 'events.example', is_waf_enabled: true });
        // A refused write announces nothing.
        await refusedPut(r.id, { name: 'events.example', service_geoip_mode: 9 }, 'service_geoip_mode');
        await remove(r.id);
        await waitFor(() => heard.length >= 3);
        await new Promise((resolve) => setTimeout(resolve, 200));
        assert.deepEqual(heard, [
          { resourceId: r.id, deleted: false },
          { resourceId: r.id, deleted: false },
          { resourceId: r.id, deleted: true },
        ]);
      } finally {
        await client.end();
      }
    });

    test('hostile input: 2 MiB body 413, 1001 list entries 400, ids that are not integers 400', async () => {
      const r = await create({ name: 'hostile.example' });
      const huge = JSON.stringify({ name: 'big.example', service_cdn_host: 'x'.repeat(2 * 1024 * 1024) });
      assertError(await send('POST', base, { raw: huge }), 413, 'body_too_large');
      assertError(await send('PUT', at(r.id), { raw: huge }), 413, 'body_too_large');
      assert.deepEqual(await get(r.id), r);

      const addresses = (n: number) => Array.from({ length: n }, (_, i) => `10.${i >> 8}.${i & 255}.1`);
      await refusedPost({ name: 'many.example', blacklists: addresses(1001).map((blacklist_data) => ({ blacklist_data })) }, 'blacklists');
      await refusedPut(r.id, { name: 'hostile.example', whitelists: addresses(1001).map((whitelist_data) => ({ whitelist_data })) }, 'whitelists');
      const thousand = await put(r.id, { name: 'hostile.example', blacklists: addresses(1000).map((blacklist_data) => ({ blacklist_data })) });
      assert.equal(thousand.blacklists.length, 1000);

      for (const id of ['abc', '1.5', '-1', '0', '1;DROP']) {
        assertError(await send('GET', at(id)), 400, 'invalid_input');
        assertError(await send('PUT', at(id), { body: { name: 'hostile.example' } }), 400, 'invalid_input');
        assertError(await send('DELETE', at(id)), 400, 'invalid_input');
      }
      const beyond = await send('GET', at('99999999999999999999999'));
      assert.ok(beyond.status === 400 || beyond.status === 404, `${beyond.status} ${beyond.text}`);
      assertError(beyond, beyond.status);
      await remove(r.id);
    });

    test('the largest id is a 404; ids past the 32-bit id columns are a 400', async () => {
      for (const method of ['GET', 'PUT', 'DELETE']) {
        const body = method === 'PUT' ? { body: { name: 'huge-id.example' } } : {};
        const response = await send(method, at('2147483647'), body);
        assertError(response, 404, 'not_found');
        assert.deepEqual(response.body, notFoundBody, method);
        for (const id of ['2147483648', String(Number.MAX_SAFE_INTEGER)]) assertError(await send(method, at(id), body), 400, 'invalid_input');
      }
    });

    test('no private key in any response body or log line', () => {
      assert.ok(seen.length > 100, `only ${seen.length} responses recorded`);
      for (const response of seen) {
        for (const line of secretLines) assert.ok(!response.text.includes(line), `a response quotes a private key: ${response.text.slice(0, 200)}`);
      }
      const log = service.output();
      assert.ok(log.length > 0);
      for (const line of secretLines) assert.ok(!log.includes(line), 'the log quotes a private key');
    });

    /** The stored form of resource `id`: the SQLite files as bytes, or its PostgreSQL row. */
    async function storedText(id: number): Promise<string> {
      if (engine === 'sqlite') {
        const files = fs.readdirSync(service.dataDir).filter((f) => f.startsWith('edgeplane.sqlite'));
        assert.ok(files.includes('edgeplane.sqlite'));
        return files.map((f) => fs.readFileSync(path.join(service.dataDir, f)).toString('latin1')).join('\n');
      }
      const client = new pg.Client({ connectionString: service.env['EDGEPLANE_DATABASE_URL'] });
      await client.connect();
      try {
        const rows = (await client.query('SELECT * FROM resources')).rows;
        const row = rows.find((x: { id: number }) => x.id === id);
        assert.equal(typeof row?.ssl_key_sealed, 'string', 'the sealed key is stored');
        return JSON.stringify(rows);
      } finally {
        await client.end();
      }
    }
  });
}
