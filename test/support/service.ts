// Starts the real service as a child process (`node src/main.ts serve`) on an ephemeral port,
// with its own data dir and, on PostgreSQL, its own database. Logs are captured for inspection.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createPostgresDatabase, type Engine, type TestDatabase } from './engines.ts';

export const root = path.resolve(import.meta.dirname, '../..');
export const mainScript = path.join(root, 'src/main.ts');
export const adminEmail = 'admin@example.com';
export const adminPassword = 'correct horse battery';

export interface Service {
  url: string;
  /** The DNS server's port (UDP and TCP on 127.0.0.1). */
  dnsPort: number;
  engine: Engine;
  dataDir: string;
  env: NodeJS.ProcessEnv;
  /** Every line the process wrote to stdout so far. */
  output(): string;
  /** Stops with a signal and waits for the exit; resolves to the exit code or signal. */
  stop(signal?: NodeJS.Signals): Promise<number | string>;
  /** Starts a new process on the same data dir and database. */
  restart(): Promise<Service>;
  /**
   * Starts another process on the same data dir and database with some settings changed (another
   * node, say `EDGEPLANE_ROLES: 'dns'`); disposing of it only stops it.
   */
  sibling(env: Record<string, string>): Promise<Service>;
  /** Stops the process and removes its data dir and database. */
  dispose(): Promise<void>;
}

export interface StartOptions {
  engine: Engine;
  env?: Record<string, string>;
}

export async function startService(options: StartOptions): Promise<Service> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'edgeplane-test-'));
  const database: TestDatabase | undefined = options.engine === 'postgres' ? await createPostgresDatabase() : undefined;
  const env: NodeJS.ProcessEnv = {
    PATH: process.env['PATH'],
    EDGEPLANE_API_LISTEN: '127.0.0.1:0',
    EDGEPLANE_DNS_LISTEN: '127.0.0.1:0',
    // One DNS thread per test service keeps the suite light; the workers have a test of their own.
    EDGEPLANE_DNS_WORKERS: '1',
    EDGEPLANE_DATA_DIR: dataDir,
    EDGEPLANE_ADMIN_EMAIL: adminEmail,
    EDGEPLANE_ADMIN_PASSWORD: adminPassword,
    EDGEPLANE_LOG_LEVEL: 'info',
    ...(database ? { EDGEPLANE_DATABASE_URL: database.url } : {}),
    ...options.env,
  };
  const cleanup = async () => {
    await database?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
  return launch(options.engine, dataDir, env, cleanup);
}

async function launch(engine: Engine, dataDir: string, env: NodeJS.ProcessEnv, cleanup: () => Promise<void>): Promise<Service> {
  const child: ChildProcess = spawn(process.execPath, [mainScript, 'serve'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | string>((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal ?? -1)));

  // A process serves the roles it was given: only those announce an address ('' and 0 for the others).
  const roles = (env['EDGEPLANE_ROLES'] ?? 'api,dns').split(',');
  const { url, dnsPort } = await new Promise<{ url: string; dnsPort: number }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`service did not start in 20 s:\n${stdout}\n${stderr}`)), 20_000);
    const onData = () => {
      const api = /"url":"(http:\/\/[^"]+)"/.exec(stdout)?.[1];
      const dns = /"dns":"[^"]*:(\d+)"/.exec(stdout)?.[1];
      if ((api !== undefined || !roles.includes('api')) && (dns !== undefined || !roles.includes('dns'))) {
        clearTimeout(timer);
        child.stdout?.off('data', onData);
        resolve({ url: api ?? '', dnsPort: Number(dns ?? 0) });
      }
    };
    child.stdout?.on('data', onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`service exited (${code}) before listening:\n${stdout}\n${stderr}`));
    });
  });

  const stop = async (signal: NodeJS.Signals = 'SIGTERM') => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    return exited;
  };
  return {
    url,
    dnsPort,
    engine,
    dataDir,
    env,
    output: () => stdout,
    stop,
    restart: () => launch(engine, dataDir, env, cleanup),
    sibling: (extra) => launch(engine, dataDir, { ...env, ...extra }, () => Promise.resolve()),
    dispose: async () => {
      await stop('SIGKILL');
      await cleanup();
    },
  };
}
