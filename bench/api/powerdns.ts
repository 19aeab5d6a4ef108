// PowerDNS Authoritative (Debian pdns-server + pdns-backend-sqlite3) as the reference: its HTTP API on
// the gsqlite3 backend, the closest thing to our embedded SQLite store, run unprivileged from a
// scratch directory (see /work/shared/design/benchmarks.md).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { keepAliveAgent, send, sendOk, type Endpoint, type RequestSpec } from './load.ts';
import { freePort } from '../../test/support/free-port.ts';
import { address, sleep, terminate, watchLog, zoneName, type BenchServer } from './server.ts';

const schemaFile = '/usr/share/pdns-backend-sqlite3/schema/schema.sqlite3.sql';
const zone = `${zoneName}.`;
const zonePath = `/api/v1/servers/localhost/zones/${zone}`;
/** RRsets per PATCH when loading the zone: setup only, so as few round trips as PowerDNS accepts. */
const loadBatch = 500;

function findServer(): string | undefined {
  const dirs = [...(process.env['PATH'] ?? '').split(':'), '/usr/sbin', '/usr/local/sbin'];
  return dirs.map((dir) => path.join(dir, 'pdns_server')).find((file) => fs.existsSync(file));
}

/** pdns_server settings for running in the foreground, as the current user, from a scratch directory. */
export function foregroundUnprivileged(dir: string): string[] {
  return [`socket-dir=${dir}`, 'daemon=no', 'guardian=no', 'setuid=', 'setgid='];
}

/** Why PowerDNS cannot run here, with how to install it; undefined when it can. */
export function missingPowerDns(): string | undefined {
  const missing = [findServer() ? undefined : 'pdns_server', fs.existsSync(schemaFile) ? undefined : schemaFile].filter(Boolean);
  if (missing.length === 0) return undefined;
  return [
    `PowerDNS is needed as the reference and is missing (${missing.join(', ')}). Install it with (as root):`,
    '',
    "  printf '#!/bin/sh\\nexit 101\\n' > /usr/sbin/policy-rc.d   # keep Debian from starting the system service",
    '  apt-get install -y pdns-server pdns-backend-sqlite3',
  ].join('\n');
}

export interface PowerDns extends BenchServer {
  /**
   * The zone's api_rectify flag. On (PowerDNS's default-api-rectify=yes), every PATCH rectifies the
   * whole zone — recomputes ordername and auth of every record — so its cost grows with the zone.
   * Rectification only matters for DNSSEC and delegations; an operator of large unsigned zones
   * turns it off, so both settings are measured.
   */
  setApiRectify(on: boolean): Promise<void>;
}

export async function startPowerDns(): Promise<PowerDns> {
  const binary = findServer();
  if (binary === undefined) throw new Error(missingPowerDns());
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pdns-bench-'));
  const database = path.join(dir, 'pdns.sqlite3');
  const apiKey = randomBytes(16).toString('hex');
  const webPort = await freePort();
  const dnsPort = await freePort();

  // The schema as shipped; WAL is a property of the file, so setting it here as well means the
  // database is in WAL mode from the first connection PowerDNS opens.
  const db = new DatabaseSync(database);
  db.exec(fs.readFileSync(schemaFile, 'utf8'));
  db.exec('PRAGMA journal_mode = WAL;');
  db.close();

  fs.writeFileSync(
    path.join(dir, 'pdns.conf'),
    [
      'launch=gsqlite3',
      `gsqlite3-database=${database}`,
      // Same durability as edgeplane's store: WAL, synchronous=NORMAL (1) — commits survive a killed
      // process, only an OS crash may lose the last ones. PowerDNS's default would be FULL.
      'gsqlite3-pragma-journal-mode=WAL',
      'gsqlite3-pragma-synchronous=1',
      'api=yes',
      `api-key=${apiKey}`,
      'webserver=yes',
      'webserver-address=127.0.0.1',
      `webserver-port=${webPort}`,
      'webserver-allow-from=127.0.0.0/8',
      'local-address=127.0.0.1',
      `local-port=${dnsPort}`,
      ...foregroundUnprivileged(dir),
      '',
    ].join('\n'),
  );

  // Two PowerDNS behaviours shape its figures and are kept as they are, since every API client meets
  // them: its webserver (4.7) closes the connection after each response and listens with a backlog of
  // 10, so at 64 clients connects overflow the accept queue and wait for the 1 s SYN retransmit; and
  // gsqlite3 opens a connection per webserver thread and fails a write at once with "database is
  // locked" (HTTP 500) when another thread holds the write lock — there is no busy-timeout setting.
  const child = spawn(binary, [`--config-dir=${dir}`], { stdio: ['ignore', 'pipe', 'pipe'] });
  const log = watchLog(child);
  const output = log.tail;
  const stop = async () => {
    await terminate(child);
    fs.rmSync(dir, { recursive: true, force: true });
  };
  const endpoint: Endpoint = { host: '127.0.0.1', port: webPort };
  const headers = { 'x-api-key': apiKey };

  try {
    const info = await waitForApi(endpoint, headers, () => child.exitCode !== null || child.signalCode !== null, output);
    const agent = keepAliveAgent(1);
    await sendOk(agent, endpoint, {
      method: 'POST',
      path: '/api/v1/servers/localhost/zones',
      headers,
      body: JSON.stringify({ name: zone, kind: 'Native', nameservers: [`ns1.${zone}`] }),
    });
    agent.destroy();

    // Confirm the journal mode PowerDNS actually runs with (read from the file; harmless in WAL).
    const check = new DatabaseSync(database, { readOnly: true });
    const journal = (check.prepare('PRAGMA journal_mode').get() as { journal_mode: string }).journal_mode;
    check.close();

    const rrset = (label: string, n: number) => ({
      name: `${label}.${zone}`,
      type: 'A',
      ttl: 300,
      changetype: 'REPLACE',
      records: [{ content: address(n), disabled: false }],
    });
    const patch = (rrsets: unknown[]): RequestSpec => ({ method: 'PATCH', path: zonePath, headers, body: JSON.stringify({ rrsets }) });
    return {
      name: 'PowerDNS',
      pid: child.pid!,
      endpoint,
      durability: `gsqlite3 journal_mode=${journal.toUpperCase()}, synchronous=1 (NORMAL)`,
      upsert: (n) => patch([rrset(`host${n}`, n)]),
      readZone: () => ({ method: 'GET', path: zonePath, headers }),
      countRrsets: (body) => (JSON.parse(body.toString()).rrsets as unknown[]).length,
      version: `${info.daemon_type ?? 'authoritative'} ${info.version ?? '?'}`,
      load: async (count) => {
        const agent = keepAliveAgent(1);
        try {
          for (let from = 0; from < count; from += loadBatch) {
            const batch = Array.from({ length: Math.min(loadBatch, count - from) }, (_, k) => rrset(`load${from + k}`, from + k));
            await sendOk(agent, endpoint, patch(batch));
          }
        } finally {
          agent.destroy();
        }
      },
      setApiRectify: async (on) => {
        const agent = keepAliveAgent(1);
        try {
          await sendOk(agent, endpoint, { method: 'PUT', path: zonePath, headers, body: JSON.stringify({ api_rectify: on }) });
        } finally {
          agent.destroy();
        }
      },
      log,
      stop,
    };
  } catch (e) {
    const text = output();
    await stop();
    throw new Error(`PowerDNS did not start: ${e instanceof Error ? e.message : String(e)}\n${text}`, { cause: e });
  }
}

async function waitForApi(endpoint: Endpoint, headers: Record<string, string>, hasExited: () => boolean, output: () => string): Promise<{ version?: string; daemon_type?: string }> {
  const agent = keepAliveAgent(1);
  try {
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline) {
      if (hasExited()) throw new Error(`process exited:\n${output()}`);
      const response = await send(agent, endpoint, { method: 'GET', path: '/api/v1/servers/localhost', headers }).catch(() => undefined);
      if (response?.status === 200) return JSON.parse(response.body.toString());
      await sleep(100);
    }
    throw new Error('no answer on /api/v1/servers/localhost within 30 s');
  } finally {
    agent.destroy();
  }
}
