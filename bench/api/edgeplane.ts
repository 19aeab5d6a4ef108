// edgeplane under test: the real service as a child process on a temporary data dir, with its store
// in SQLite there or in a fresh PostgreSQL database, driven through its public API with an API
// token, as a provisioning script would.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { keepAliveAgent, send, sendOk, type Endpoint, type RequestSpec } from './load.ts';
import { listeningPorts } from './proc-cpu.ts';
import { address, sleep, terminate, watchLog, zoneName, type BenchServer } from './server.ts';
import { createPostgresDatabase, type TestDatabase } from '../../test/support/engines.ts';

const root = path.resolve(import.meta.dirname, '../..');
const adminEmail = 'bench@example.com';
const adminPassword = 'bench-password-123';

/** Lines per zone-file import request: well under the import's 1 MiB JSON body. */
const importChunk = 10_000;

/**
 * `postgres`: a PostgreSQL server URL on which a database may be created; the service then keeps
 * its store in a fresh database there, dropped when it stops. Otherwise SQLite in the data dir.
 * `nodeArgs`: extra Node options, e.g. --cpu-prof. `checkout`: another checkout of edgeplane (with its
 * `npm ci` done) whose service to run instead of this one's (interleaved.ts compares two).
 */
export async function startEdgeplane(options: { postgres?: string | undefined; nodeArgs?: string[]; checkout?: string } = {}): Promise<BenchServer> {
  const checkout = options.checkout ?? root;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'edgeplane-bench-'));
  const database = options.postgres === undefined ? undefined : await createDatabase(options.postgres);
  // Log level warn: at info Fastify writes two JSON lines per request, which would charge the server
  // for logging that PowerDNS (which logs no successful API calls) does not do. The URL line is then
  // not printed, so the port (0 = any free one, no race) is read from /proc instead.
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), path.join(checkout, 'src/main.ts'), 'serve'], {
    env: {
      PATH: process.env['PATH'],
      EDGEPLANE_API_LISTEN: '127.0.0.1:0',
      EDGEPLANE_DATA_DIR: dataDir,
      EDGEPLANE_ADMIN_EMAIL: adminEmail,
      EDGEPLANE_ADMIN_PASSWORD: adminPassword,
      EDGEPLANE_LOG_LEVEL: 'warn',
      ...(database === undefined ? {} : { EDGEPLANE_DATABASE_URL: database.url }),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const log = watchLog(child);
  const output = log.tail;
  const stop = async () => {
    await terminate(child);
    fs.rmSync(dataDir, { recursive: true, force: true });
    await database?.drop();
  };

  try {
    const pid = child.pid!;
    const version = edgeplaneVersion(checkout);
    const endpoint = await waitForApi(pid, () => child.exitCode !== null || child.signalCode !== null, output);
    const agent = keepAliveAgent(4);
    const json = (spec: RequestSpec) => sendOk(agent, endpoint, spec).then((r) => JSON.parse(r.body.toString()));

    const { access } = await json({ method: 'POST', path: '/iam/auth/jwt/login', headers: {}, body: JSON.stringify({ username: adminEmail, password: adminPassword }) });
    const bearer = { authorization: `Bearer ${access}` };
    const me = await json({ method: 'GET', path: '/iam/clients/me', headers: bearer });
    const { token } = await json({ method: 'POST', path: `/iam/v2/clients/${me.id}/tokens`, headers: bearer, body: JSON.stringify({ name: 'bench' }) });
    // A permanent API token, as scripts use; it is what every measured request authenticates with.
    const headers = { authorization: `APIKey ${token}` };
    await json({ method: 'POST', path: '/dns/v2/zones', headers, body: JSON.stringify({ name: zoneName }) });
    agent.destroy();

    const upsertAt = (label: string, n: number): RequestSpec => ({
      method: 'PUT',
      path: `/dns/v2/zones/${zoneName}/${label}.${zoneName}/A`,
      headers,
      body: JSON.stringify({ ttl: 300, resource_records: [{ content: [address(n)] }] }),
    });
    return {
      name: database === undefined ? 'edgeplane' : 'edgeplane PostgreSQL',
      pid,
      endpoint,
      durability:
        database === undefined
          ? 'SQLite (node:sqlite) journal_mode=WAL, synchronous=NORMAL'
          : `PostgreSQL ${database.version} (server defaults: synchronous_commit=${database.synchronousCommit}, fsync=${database.fsync}); server CPU is edgeplane's only, not PostgreSQL's`,
      upsert: (n) => upsertAt(`host${n}`, n),
      readZone: () => ({ method: 'GET', path: `/dns/v2/zones/${zoneName}`, headers }),
      // `{Zone: {records}}` in the default (seed) shapes, `{records}` in gcore's.
      countRrsets: (body) => {
        const parsed = JSON.parse(body.toString());
        return ((parsed.Zone ?? parsed).records as unknown[]).length;
      },
      version,
      load: async (count) => {
        // Zone-file imports, the bulk path: setup is not measured, and one PUT per RRset would take
        // a minute on PostgreSQL before the measurements begin.
        const agent = keepAliveAgent(1);
        try {
          for (let start = 0; start < count; start += importChunk) {
            const lines = Array.from({ length: Math.min(importChunk, count - start) }, (_, k) => `load${start + k} 300 IN A ${address(start + k)}`);
            const content = `$ORIGIN ${zoneName}.\n${lines.join('\n')}\n`;
            const response = await sendOk(agent, endpoint, { method: 'POST', path: `/dns/v2/zones/${zoneName}/import`, headers, body: JSON.stringify({ content }) });
            const { created, skipped } = JSON.parse(response.body.toString()) as { created: unknown; skipped: unknown[] };
            const made = Array.isArray(created) ? created.length : Number(created);
            if (made !== lines.length || skipped.length > 0) throw new Error(`edgeplane imported ${made} of ${lines.length} RRsets: ${JSON.stringify(skipped.slice(0, 3))}`);
          }
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
    throw new Error(`edgeplane did not start: ${e instanceof Error ? e.message : String(e)}\n${text}`, { cause: e });
  }
}

interface BenchDatabase extends TestDatabase {
  version: string;
  synchronousCommit: string;
  fsync: string;
}

/** A fresh database on the server `adminUrl` names (test/support/engines.ts), with the server settings that bear on commits. */
async function createDatabase(adminUrl: string): Promise<BenchDatabase> {
  const database = await createPostgresDatabase(adminUrl);
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    const show = async (setting: string) => String((await client.query(`SHOW ${setting}`)).rows[0]?.[setting] ?? '?');
    return { ...database, version: (await show('server_version')).split(' ')[0] ?? '?', synchronousCommit: await show('synchronous_commit'), fsync: await show('fsync') };
  } finally {
    await client.end();
  }
}

/** package.json version and the checkout's commit, marked dirty when src/ has uncommitted changes. */
function edgeplaneVersion(checkout: string): string {
  const { version } = JSON.parse(fs.readFileSync(path.join(checkout, 'package.json'), 'utf8'));
  try {
    const git = (...args: string[]) => execFileSync('git', ['-C', checkout, ...args], { encoding: 'utf8' }).trim();
    const dirty = git('status', '--porcelain', '--', 'src') === '' ? '' : ' +uncommitted src changes';
    return `${version} (${git('rev-parse', '--short', 'HEAD')}${dirty})`;
  } catch {
    return String(version);
  }
}

async function waitForApi(pid: number, hasExited: () => boolean, output: () => string): Promise<Endpoint> {
  const agent = keepAliveAgent(1);
  try {
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline) {
      if (hasExited()) throw new Error(`process exited:\n${output()}`);
      for (const port of listeningPorts(pid)) {
        const endpoint = { host: '127.0.0.1', port };
        const ready = await send(agent, endpoint, { method: 'GET', path: '/readyz', headers: {} }).catch(() => undefined);
        if (ready?.status === 200) return endpoint;
      }
      await sleep(100);
    }
    throw new Error('no answer on /readyz within 30 s');
  } finally {
    agent.destroy();
  }
}
