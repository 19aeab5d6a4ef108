// edgeplane under test: `node src/main.ts serve` as a child process on a data dir the caller owns (so
// it can be restarted on the same data with other settings), set up through its public API.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { keepAliveAgent, runCount, sendOk, type Endpoint, type RequestSpec } from '../api/load.ts';
import { terminate, watchLog } from '../api/server.ts';
import { waitForSoa } from './dns-client.ts';
import { freePort } from '../../test/support/free-port.ts';
import { hasExited, spawnPinned, type DnsServer } from './server.ts';
import { waitForReadyz } from '../api/readiness.ts';

const root = path.resolve(import.meta.dirname, '../..');
const adminEmail = 'bench@example.com';
const adminPassword = 'bench-password-123';

/** The "DNS listening" log line (info level): when the zones were loaded and the sockets bound. */
export interface ListeningLine {
  /** Milliseconds from spawning the process to the line. */
  atMs: number;
  /** The service's own measure of loading the zones (`load_ms`). */
  loadMs: number;
  zones: number;
  /** DNS threads, when the service logs it (builds with EDGEPLANE_DNS_WORKERS). */
  workers: number | undefined;
}

export interface Edgeplane extends DnsServer {
  api: Endpoint;
  /** Set when started at log level info. */
  listening: ListeningLine | undefined;
}

export interface EdgeplaneOptions {
  dataDir: string;
  /** CPUs the whole process (all its threads) may run on; undefined: any. */
  cpus: string | undefined;
  /** EDGEPLANE_DNS_WORKERS; undefined leaves it unset (the service's default). */
  workers: number | undefined;
  /** warn while measuring queries (nothing is logged per query at either level); info to see the "DNS listening" line. */
  logLevel: 'warn' | 'info';
  /** A zone whose SOA must be answered before the server counts as started. */
  zone: string | undefined;
  /** Extra Node options, e.g. --cpu-prof. */
  nodeArgs?: string[];
  timeoutMs?: number;
  /** Called with the pid right after spawning, before the server is ready. */
  onSpawn?: (pid: number) => void;
  /** More settings (EDGEPLANE_DNS_TRANSFER_ALLOW, say). */
  env?: Record<string, string>;
}

/** Whether this checkout's edgeplane has the EDGEPLANE_DNS_WORKERS setting (it lists its settings in --help). */
export function supportsDnsWorkers(): boolean {
  const help = execFileSync(process.execPath, [path.join(root, 'src/main.ts'), '--help'], { encoding: 'utf8' });
  return help.includes('EDGEPLANE_DNS_WORKERS');
}

/** package.json version and the checkout's commit, marked when src/ has uncommitted changes. */
export function edgeplaneVersion(): string {
  const { version } = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
  try {
    const git = (...args: string[]) => execFileSync('git', ['-C', root, ...args], { encoding: 'utf8' }).trim();
    const dirty = git('status', '--porcelain', '--', 'src') === '' ? '' : ' +uncommitted src changes';
    return `${String(version)} (${git('rev-parse', '--short', 'HEAD')}${dirty})`;
  } catch {
    return String(version);
  }
}

const udpIo = process.env['EDGEPLANE_DNS_UDP_IO'];

export async function startEdgeplane(options: EdgeplaneOptions): Promise<Edgeplane> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    PATH: process.env['PATH'],
    // The DNS port is chosen here (at log level warn the service does not print it); the API's is
    // any free one, found in /proc.
    EDGEPLANE_DNS_LISTEN: `127.0.0.1:${port}`,
    EDGEPLANE_API_LISTEN: '127.0.0.1:0',
    EDGEPLANE_DATA_DIR: options.dataDir,
    EDGEPLANE_ADMIN_EMAIL: adminEmail,
    EDGEPLANE_ADMIN_PASSWORD: adminPassword,
    EDGEPLANE_LOG_LEVEL: options.logLevel,
    // As `npm start` starts it (package.json): every thread reads its modules from the compile cache,
    // the main thread too, so none loads a TypeScript stripper (docs/dns-server.md, "Memory").
    NODE_COMPILE_CACHE: path.join(root, 'node_modules/.cache/edgeplane-compile'),
    ...(options.workers === undefined ? {} : { EDGEPLANE_DNS_WORKERS: String(options.workers) }),
    // Set it to dgram to measure Node's own UDP against the batched addon.
    ...(udpIo === undefined ? {} : { EDGEPLANE_DNS_UDP_IO: udpIo }),
    ...options.env,
  };
  const started = Date.now();
  const child = spawnPinned(process.execPath, [...(options.nodeArgs ?? []), path.join(root, 'src/main.ts'), 'serve'], options.cpus, env);
  if (child.pid !== undefined) options.onSpawn?.(child.pid);
  const log = watchLog(child);
  let listening: ListeningLine | undefined;
  let partial = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    const lines = (partial + chunk.toString()).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      if (listening !== undefined || !line.includes('DNS listening')) continue;
      try {
        const entry = JSON.parse(line);
        listening = { atMs: Date.now() - started, loadMs: Number(entry.load_ms), zones: Number(entry.zones), workers: entry.workers === undefined ? undefined : Number(entry.workers) };
      } catch {
        // not a JSON log line
      }
    }
  });
  const exited = () => hasExited(child);
  const stop = () => terminate(child, 15_000);
  try {
    const timeoutMs = options.timeoutMs ?? 60_000;
    // The zone is asked for from spawn on: the DNS threads serve it before the API is ready (it
    // starts after them), and "served" is the DNS answering, not the API.
    const [api, soaAt] = await Promise.all([
      waitForReadyz(child.pid!, exited, timeoutMs, [port]),
      options.zone === undefined ? undefined : waitForSoa(port, options.zone, exited, timeoutMs),
    ]);
    const ready = soaAt ?? Date.now();
    const workers = options.workers === undefined ? 'EDGEPLANE_DNS_WORKERS unset (its default)' : `EDGEPLANE_DNS_WORKERS=${options.workers}`;
    return {
      name: 'edgeplane',
      pid: child.pid!,
      port,
      description: `edgeplane ${edgeplaneVersion()} on Node ${process.version}: ${workers}, log level ${options.logLevel}, SQLite store, UDP ${udpIo ?? 'auto'}${options.cpus === undefined ? '' : `, CPUs ${options.cpus}`}`,
      readyMs: ready - started,
      log,
      hasExited: exited,
      stop,
      api,
      get listening() {
        return listening;
      },
    };
  } catch (e) {
    const text = log.tail();
    await stop();
    throw new Error(`edgeplane did not start: ${e instanceof Error ? e.message : String(e)}\n${text}`, { cause: e });
  }
}

/** The API as a provisioning script uses it: an API token, then zone and RRset calls. */
export class EdgeplaneApi {
  readonly endpoint: Endpoint;
  readonly #headers: Record<string, string>;

  private constructor(endpoint: Endpoint, headers: Record<string, string>) {
    this.endpoint = endpoint;
    this.#headers = headers;
  }

  /** Logs in as the administrator and makes a permanent API token (stored, so valid after restarts). */
  static async login(endpoint: Endpoint): Promise<EdgeplaneApi> {
    const json = (spec: RequestSpec) => call(endpoint, spec);
    const { access } = await json({ method: 'POST', path: '/iam/auth/jwt/login', headers: {}, body: JSON.stringify({ username: adminEmail, password: adminPassword }) });
    const bearer = { authorization: `Bearer ${String(access)}` };
    const me = await json({ method: 'GET', path: '/iam/clients/me', headers: bearer });
    const { token } = await json({ method: 'POST', path: `/iam/v2/clients/${String(me.id)}/tokens`, headers: bearer, body: JSON.stringify({ name: 'dns-bench' }) });
    return new EdgeplaneApi(endpoint, { authorization: `APIKey ${String(token)}` });
  }

  /** The same token against a restarted process. */
  at(endpoint: Endpoint): EdgeplaneApi {
    return new EdgeplaneApi(endpoint, this.#headers);
  }

  createZone(zone: string): Promise<any> {
    return call(this.endpoint, { method: 'POST', path: '/dns/v2/zones', headers: this.#headers, body: JSON.stringify({ name: zone }) });
  }

  /** Zone-file import (RRsets that do not exist yet): the file as text/plain, up to 10 MiB per request. */
  async importZone(zone: string, text: string): Promise<{ created: number; skipped: { reason: string }[] }> {
    const result = await call(this.endpoint, { method: 'POST', path: `/dns/v2/zones/${zone}/import`, body: text, headers: { ...this.#headers, 'content-type': 'text/plain' } });
    return { created: (result.created as unknown[]).length, skipped: result.skipped };
  }

  /** Turns DNSSEC on for the zone (the DNS server then signs its answers online). */
  async enableDnssec(zone: string): Promise<void> {
    await call(this.endpoint, { method: 'PATCH', path: `/dns/v2/zones/${zone}/dnssec`, headers: this.#headers, body: JSON.stringify({ enabled: true }) });
  }

  async exportZone(zone: string): Promise<string> {
    const { raw_zone: raw } = await call(this.endpoint, { method: 'GET', path: `/dns/v2/zones/${zone}/export`, headers: this.#headers });
    return String(raw);
  }

  /** PUTs RRsets with `concurrency` clients; throws on any failure. */
  async putRrsets(zone: string, rrsets: { name: string; type: string; body: Record<string, unknown> }[], concurrency = 8): Promise<void> {
    const result = await runCount(this.endpoint, concurrency, rrsets.length, (i) => {
      const { name, type, body } = rrsets[i]!;
      return { method: 'PUT', path: `/dns/v2/zones/${zone}/${name}/${type}`, headers: this.#headers, body: JSON.stringify(body) };
    });
    if (result.errors > 0) throw new Error(`edgeplane: ${result.errors} of ${rrsets.length} RRset writes failed: ${result.errorSamples.join(' | ')}`);
  }
}

async function call(endpoint: Endpoint, spec: RequestSpec): Promise<any> {
  const agent = keepAliveAgent(1);
  try {
    return JSON.parse((await sendOk(agent, endpoint, spec)).body.toString());
  } finally {
    agent.destroy();
  }
}
