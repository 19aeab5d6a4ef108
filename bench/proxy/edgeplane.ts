// edgeplane under test: the resources are created through its HTTP API by one process (role `api`),
// then the proxy runs in a process of its own on the same data dir (role `proxy`), pinned like nginx,
// so the CPU charged to it is the proxy's alone.
import http from 'node:http';
import path from 'node:path';
import { keepAliveAgent, sendOk, type RequestSpec } from '../api/load.ts';
import { sleep, terminate, watchLog } from '../api/server.ts';
import { edgeplaneVersion } from '../dns/edgeplane.ts';
import { hasExited, spawnPinned } from '../dns/server.ts';
import type { Certificate } from './certificate.ts';
import type { BenchResource } from './resources.ts';
import type { ProxyServer } from './server.ts';
import { waitForReadyz } from '../api/readiness.ts';

const root = path.resolve(import.meta.dirname, '../..');
const adminEmail = 'bench@example.com';
const adminPassword = 'bench-password-123';

function baseEnv(dataDir: string, roles: string): NodeJS.ProcessEnv {
  return {
    PATH: process.env['PATH'],
    EDGEPLANE_ROLES: roles,
    EDGEPLANE_DATA_DIR: dataDir,
    EDGEPLANE_API_LISTEN: '127.0.0.1:0',
    EDGEPLANE_ADMIN_EMAIL: adminEmail,
    EDGEPLANE_ADMIN_PASSWORD: adminPassword,
    // warn: nothing is logged per request (nginx runs with access_log off).
    EDGEPLANE_LOG_LEVEL: 'warn',
  };
}

/** The body of `POST /security/resources` for one bench resource (docs/api/security.md). */
export function resourceBody(resource: BenchResource, cert: Certificate): Record<string, unknown> {
  return {
    name: resource.name,
    origins: resource.origins.map((o) => ({ origin_data: `127.0.0.1:${o.port}`, origin_weight: o.weight, origin_mode: o.mode })),
    whitelists: resource.whitelist.map((entry) => ({ whitelist_data: entry })),
    blacklists: resource.blacklist.map((entry) => ({ blacklist_data: entry })),
    service_geoip_mode: resource.geoMode,
    service_geoip_list: resource.countries.join(','),
    rate_limier_rules: resource.rule === undefined ? [] : [{ method: '*', path: '/*', value: resource.rule.value, test_cookie: false }],
    ssl_type: 'custom',
    service_ssl_crt: cert.cert,
    service_ssl_key: cert.key,
    // The origin speaks plain HTTP to both proxies (nginx: proxy_pass http://).
    service_https2http: 1,
  };
}

/**
 * Starts edgeplane with the API only on `dataDir`, logs in as the administrator (Bearer token) and
 * creates the resources (`POST /security/resources` bodies, e.g. resourceBody's); stops it again.
 * The data dir keeps them (and the key sealing the TLS key).
 */
export async function createResources(dataDir: string, bodies: Record<string, unknown>[]): Promise<void> {
  const child = spawnPinned(process.execPath, [path.join(root, 'src/main.ts'), 'serve'], undefined, baseEnv(dataDir, 'api'));
  const log = watchLog(child);
  try {
    const endpoint = await waitForReadyz(child.pid!, () => hasExited(child), 60_000);
    const agent = keepAliveAgent(1);
    try {
      const json = async (spec: RequestSpec) => JSON.parse((await sendOk(agent, endpoint, spec)).body.toString());
      const { access } = await json({ method: 'POST', path: '/iam/auth/jwt/login', headers: {}, body: JSON.stringify({ username: adminEmail, password: adminPassword }) });
      const headers = { authorization: `Bearer ${String(access)}` };
      for (const body of bodies) {
        await json({ method: 'POST', path: '/security/resources', headers, body: JSON.stringify(body) });
      }
    } finally {
      agent.destroy();
    }
  } catch (e) {
    throw new Error(`edgeplane: creating the resources failed: ${e instanceof Error ? e.message : String(e)}\n${log.tail()}`, { cause: e });
  } finally {
    await terminate(child, 15_000);
  }
}

export interface EdgeplaneProxyOptions {
  dataDir: string;
  httpPort: number;
  httpsPort: number;
  workers: number;
  cpus: string | undefined;
  /** A host the proxy must answer 200 for before it counts as started. */
  readyHost: string;
  /** Extra Node options, e.g. --cpu-prof --cpu-prof-dir=DIR. */
  nodeArgs?: string[];
  /** Automatic mitigation at its defaults (docs/proxy.md); off by default here. */
  mitigation?: boolean;
  /** Further settings (`EDGEPLANE_*`), listed in the description printed with the figures. */
  env?: Record<string, string>;
}

function answers(port: number, host: string): Promise<number> {
  return new Promise((resolve) => {
    const request = http.get({ host: '127.0.0.1', port, path: '/', headers: { host }, timeout: 1000, agent: false }, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode ?? 0));
    });
    request.on('timeout', () => request.destroy());
    request.on('error', () => resolve(0));
  });
}

/** The proxy role alone, on the data dir `createResources` filled. */
export async function startEdgeplaneProxy(options: EdgeplaneProxyOptions): Promise<ProxyServer> {
  const env: NodeJS.ProcessEnv = {
    ...baseEnv(options.dataDir, 'proxy'),
    EDGEPLANE_PROXY_HTTP_LISTEN: `127.0.0.1:${options.httpPort}`,
    EDGEPLANE_PROXY_HTTPS_LISTEN: `127.0.0.1:${options.httpsPort}`,
    EDGEPLANE_PROXY_WORKERS: String(options.workers),
    // The origin is on loopback, which the proxy refuses by default.
    EDGEPLANE_PROXY_ALLOW_PRIVATE_ORIGINS: '1',
    // nginx runs with access_log off: neither writes a line per request.
    EDGEPLANE_PROXY_ACCESS_LOG: '0',
    // Automatic mitigation off unless asked for: wrk from one address is an attack to it (it sheds
    // it, 429), and nginx has nothing of the kind to compare with.
    ...(options.mitigation === true ? {} : { EDGEPLANE_PROXY_ATTACK_MIN_RATE: '100000000' }),
    ...options.env,
  };
  const args = [...(options.nodeArgs ?? []), path.join(root, 'src/main.ts'), 'serve'];
  const child = spawnPinned(process.execPath, args, options.cpus, env);
  const log = watchLog(child);
  // A profiled process must exit on its own for Node to write the profile: SIGTERM, a long grace.
  const stop = () => terminate(child, 30_000);
  try {
    const deadline = Date.now() + 60_000;
    let status = 0;
    while ((status = await answers(options.httpPort, options.readyHost)) !== 200) {
      if (hasExited(child)) throw new Error('the process exited');
      if (Date.now() > deadline) throw new Error(`${options.readyHost} not answered with 200 within 60 s (last status ${status || 'none'})`);
      await sleep(100);
    }
    return {
      name: 'edgeplane',
      pid: child.pid!,
      httpPort: options.httpPort,
      httpsPort: options.httpsPort,
      description:
        `edgeplane ${edgeplaneVersion()} on Node ${process.version}: EDGEPLANE_ROLES=proxy (a process of its own; the API created the resources and stopped), ` +
        `EDGEPLANE_PROXY_WORKERS=${options.workers}, EDGEPLANE_PROXY_ACCESS_LOG=0, automatic mitigation ${options.mitigation === true ? 'on' : 'off'}, ${Object.entries(options.env ?? {}).map(([k, v]) => `${k}=${v}, `).join('')}log level warn, SQLite store${options.cpus === undefined ? '' : `, CPUs ${options.cpus}`}${options.nodeArgs?.length ? `, node ${options.nodeArgs.join(' ')}` : ''}`,
      log,
      hasExited: () => hasExited(child),
      stop,
    };
  } catch (e) {
    const text = log.tail();
    await stop();
    throw new Error(`edgeplane's proxy did not start: ${e instanceof Error ? e.message : String(e)}\n${text}`, { cause: e });
  }
}
