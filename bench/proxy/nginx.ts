// nginx (Debian's) twice over: the small static origin both proxies forward to, and the reference
// proxy configured with the same resources as edgeplane. Both run unprivileged-style from a scratch
// directory in the foreground (see /work/shared/design/benchmarks.md and proxy.md).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { sleep, terminate, watchLog } from '../api/server.ts';
import { defaultCountryDb } from '../../src/geo/geoip.ts';
import { findProgram, hasExited, spawnPinned } from '../dns/server.ts';
import type { Certificate } from './certificate.ts';
import { allResources, type BenchResource, type BenchResources, type OriginPorts } from './resources.ts';
import { nginxModule, type ProxyServer } from './server.ts';

/** What each origin port answers: same length, so a load tool checking lengths sees no difference. */
export const originBodies = { primary: 'origin-a\n', secondary: 'origin-b\n', backup: 'origin-c\n' };

/** Settings both nginx instances share: foreground, one worker, no access log, scratch paths. */
function common(dir: string, workers: number): string[] {
  return [
    'daemon off;',
    'master_process on;',
    `worker_processes ${workers};`,
    `pid ${path.join(dir, 'nginx.pid')};`,
    // error, not warn: with limit_req_log_level below it, refusals are not logged (edgeplane logs none at level warn).
    `error_log ${path.join(dir, 'error.log')} error;`,
    'worker_rlimit_nofile 65536;',
    'events { worker_connections 16384; }',
  ];
}

function httpCommon(dir: string): string[] {
  return [
    'access_log off;',
    // nginx closes a client connection after 1,000 requests by default; Node's server has no such limit.
    'keepalive_requests 10000000;',
    'keepalive_timeout 300s;',
    ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((kind) => `${kind}_temp_path ${path.join(dir, `${kind}-temp`)};`),
  ];
}

interface StartOptions {
  name: string;
  dir: string;
  config: string;
  cpus: string | undefined;
  /** Requests that must answer (any status) before the server counts as started. */
  probes: { port: number; host: string }[];
  description: string;
  httpPort: number;
  httpsPort: number;
}

function probe(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const request = http.get({ host: '127.0.0.1', port, path: '/', headers: { host }, timeout: 1000, agent: false }, (response) => {
      response.resume();
      response.on('end', () => resolve(true));
    });
    request.on('timeout', () => request.destroy());
    request.on('error', () => resolve(false));
  });
}

async function start(options: StartOptions): Promise<ProxyServer> {
  const binary = findProgram('nginx');
  if (binary === undefined) throw new Error('nginx is not installed');
  const configFile = path.join(options.dir, 'nginx.conf');
  fs.writeFileSync(configFile, options.config);
  // -e: the error log before the configuration is read (the default, /var/log/nginx, may not be writable).
  const child = spawnPinned(binary, ['-c', configFile, '-p', `${options.dir}/`, '-e', path.join(options.dir, 'error.log')], options.cpus);
  const log = watchLog(child);
  const stop = async () => {
    await terminate(child);
    fs.rmSync(options.dir, { recursive: true, force: true });
  };
  try {
    const deadline = Date.now() + 15_000;
    for (const { port, host } of options.probes) {
      while (!(await probe(port, host))) {
        if (hasExited(child)) throw new Error('nginx exited');
        if (Date.now() > deadline) throw new Error(`no answer on port ${port} within 15 s`);
        await sleep(50);
      }
    }
    return {
      name: options.name,
      pid: child.pid!,
      httpPort: options.httpPort,
      httpsPort: options.httpsPort,
      description: options.description,
      log,
      hasExited: () => hasExited(child),
      stop,
    };
  } catch (e) {
    let errors = '';
    try {
      errors = fs.readFileSync(path.join(options.dir, 'error.log'), 'utf8');
    } catch {
      // never written
    }
    const text = `${log.tail()}${errors}`;
    await stop();
    throw new Error(`${options.name} did not start: ${e instanceof Error ? e.message : String(e)}\n${text}`, { cause: e });
  }
}

/** `nginx -v` prints on stderr and exits 0. */
export function nginxVersion(): string {
  const { stderr } = spawnSync(findProgram('nginx') ?? 'nginx', ['-v'], { encoding: 'utf8' });
  return /nginx\/(\S+)/.exec(stderr)?.[1] ?? '?';
}

/**
 * The static origin: one nginx worker answering `return 200` on the three origin ports, and with a
 * `statusPort` its `stub_status` there (flood-many.ts counts the requests that reached the origin).
 */
export function startOrigin(ports: OriginPorts, cpus: string | undefined, statusPort?: number): Promise<ProxyServer> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'origin-proxy-bench-'));
  const server = (port: number, body: string) => `  server { listen 127.0.0.1:${port} backlog=4096; location / { return 200 "${body.replace('\n', '\\n')}"; } }`;
  const config = [
    ...common(dir, 1),
    'http {',
    ...httpCommon(dir).map((l) => `  ${l}`),
    '  default_type text/plain;',
    server(ports.primary, originBodies.primary),
    server(ports.secondary, originBodies.secondary),
    server(ports.backup, originBodies.backup),
    ...(statusPort === undefined ? [] : [`  server { listen 127.0.0.1:${statusPort}; location / { stub_status; } }`]),
    '}',
    '',
  ].join('\n');
  return start({
    name: 'origin',
    dir,
    config,
    cpus,
    probes: [{ port: ports.primary, host: 'origin' }],
    description: `nginx ${nginxVersion()} origin: worker_processes 1, return 200 (9 bytes) on ports ${ports.primary}, ${ports.secondary}, ${ports.backup}${cpus === undefined ? '' : `, CPUs ${cpus}`}`,
    httpPort: ports.primary,
    httpsPort: 0,
  });
}

/** A resource's identifier inside nginx's configuration (variables, zones, upstreams). */
const id = (resource: BenchResource) => resource.name.split('.')[0]!;

/**
 * The http-level blocks of one resource, in edgeplane's order of checks: whitelist (skips the rest),
 * blacklist, geo, rate rule. Lists are `geo` blocks (radix trees, as fast as nginx gets; 1,000
 * `deny` lines would be scanned one by one per request), countries a `map` over the GeoIP2 variable,
 * and whitelisted clients get an empty `limit_req` key, which nginx does not count.
 */
function resourceBlocks(resource: BenchResource): string[] {
  const r = id(resource);
  const lines: string[] = [];
  const upstream = resource.origins.map((o) => `    server 127.0.0.1:${o.port}${o.weight === 1 ? '' : ` weight=${o.weight}`}${o.mode === 'backup' ? ' backup' : ''};`);
  lines.push(`  upstream ${r} {`, ...upstream, '    keepalive 64;', '    keepalive_requests 10000000;', '    keepalive_timeout 300s;', '  }');
  const checks = resource.whitelist.length > 0 || resource.blacklist.length > 0 || resource.geoMode !== 0;
  if (checks) {
    lines.push(`  geo $${r}_whitelisted {`, '    default 0;', ...resource.whitelist.map((e) => `    ${e} 1;`), '  }');
    lines.push(`  geo $${r}_blacklisted {`, '    default 0;', ...resource.blacklist.map((e) => `    ${e} 1;`), '  }');
    lines.push(`  map $bench_country $${r}_geo_refused {`, '    default 0;', ...(resource.geoMode === 1 ? resource.countries.map((c) => `    ${c} 1;`) : []), '  }');
    // map values are evaluated lazily: a whitelisted client never reaches the blacklist or the country lookup.
    lines.push(`  map $${r}_blacklisted $${r}_list_or_geo { 1 1; default $${r}_geo_refused; }`);
    lines.push(`  map $${r}_whitelisted $${r}_refused { 1 0; default $${r}_list_or_geo; }`);
    lines.push(`  map $${r}_whitelisted $${r}_limit_key { 1 ""; default $binary_remote_addr; }`);
  }
  if (resource.rule !== undefined) {
    const key = checks ? `$${r}_limit_key` : '$binary_remote_addr';
    lines.push(`  limit_req_zone ${key} zone=${r}:10m rate=${resource.rule.value}r/s;`);
  }
  if (resource.connectionsPerClient !== undefined) lines.push(`  limit_conn_zone $binary_remote_addr zone=${r}_connections:10m;`);
  return lines;
}

function serverBlock(resource: BenchResource, httpPort: number, httpsPort: number, cert: Certificate): string[] {
  const r = id(resource);
  const checks = resource.whitelist.length > 0 || resource.blacklist.length > 0 || resource.geoMode !== 0;
  return [
    '  server {',
    `    listen 127.0.0.1:${httpPort};`,
    `    listen 127.0.0.1:${httpsPort} ssl;`,
    `    server_name ${resource.name};`,
    `    ssl_certificate ${cert.certFile};`,
    `    ssl_certificate_key ${cert.keyFile};`,
    '    location / {',
    ...(checks ? [`      if ($${r}_refused) { return 403; }`] : []),
    ...(resource.rule === undefined ? [] : [`      limit_req zone=${r} burst=${resource.rule.value} nodelay;`]),
    ...(resource.connectionsPerClient === undefined ? [] : [`      limit_conn ${r}_connections ${resource.connectionsPerClient};`]),
    `      proxy_pass http://${r};`,
    '    }',
    '  }',
  ];
}

export interface NginxProxyOptions {
  resources: BenchResources;
  cert: Certificate;
  httpPort: number;
  httpsPort: number;
  workers: number;
  cpus: string | undefined;
  /** Shown in the table's header (a second nginx stands in for edgeplane when checking the harness). */
  name: string;
}

/** The reference proxy: the same resources as edgeplane's, as server blocks. */
export function startNginxProxy(options: NginxProxyOptions): Promise<ProxyServer> {
  const module = nginxModule();
  if (module === undefined) throw new Error('the nginx GeoIP2 module is not installed');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nginx-proxy-bench-'));
  const { httpPort, httpsPort, cert } = options;
  const resources = allResources(options.resources);
  const config = [
    `load_module ${module};`,
    ...common(dir, options.workers),
    'http {',
    ...httpCommon(dir).map((l) => `  ${l}`),
    // nginx 1.22 offers TLS 1.2 only unless told (1.23.4 added 1.3 to the default); Node offers both.
    '  ssl_protocols TLSv1.2 TLSv1.3;',
    '  limit_req_status 429;',
    '  limit_conn_status 429;',
    '  limit_conn_log_level info;',
    '  limit_req_log_level info;',
    `  geoip2 ${defaultCountryDb} { $bench_country country_code; }`,
    // What a proxy tells the origin, as edgeplane does: the client's host, address and scheme.
    '  proxy_http_version 1.1;',
    '  proxy_set_header Connection "";',
    '  proxy_set_header Host $host;',
    '  proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;',
    '  proxy_set_header X-Forwarded-Proto $scheme;',
    ...resources.flatMap(resourceBlocks),
    // Unknown host names: no certificate, and 421 over plain HTTP, as edgeplane refuses hosts it does not serve.
    '  server {',
    `    listen 127.0.0.1:${httpPort} default_server;`,
    `    listen 127.0.0.1:${httpsPort} ssl default_server;`,
    '    ssl_reject_handshake on;',
    '    return 421;',
    '  }',
    ...resources.flatMap((resource) => serverBlock(resource, httpPort, httpsPort, cert)),
    '}',
    '',
  ].join('\n');
  return start({
    name: options.name,
    dir,
    config,
    cpus: options.cpus,
    probes: [{ port: httpPort, host: options.resources.plain.name }],
    description:
      `nginx ${nginxVersion()}: worker_processes ${options.workers}, access_log off, upstream keepalive 64, TLS 1.2 and 1.3, ` +
      `lists as geo blocks, countries by the GeoIP2 module on the same .mmdb as edgeplane's, limit_req burst=value nodelay (429)${options.cpus === undefined ? '' : `, CPUs ${options.cpus}`}`,
    httpPort,
    httpsPort,
  });
}
