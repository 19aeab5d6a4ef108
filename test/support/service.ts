// Starts the real service on ephemeral ports, with its own data dir and, on PostgreSQL, its own
// database, and keeps what it writes (JSON log lines, the first start's notice) for inspection.
// By default the service runs inside the test process (src/app.ts startService, as `serve` runs it):
// starting one costs no Node start-up and no module loading. `{ process: true }` runs
// `node src/main.ts serve` as a child process instead, for what only a process has: signals,
// kill -9, exit codes.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { shutDown, startService as startApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { createPostgresDatabase, type Engine, type TestDatabase } from './engines.ts';

export const root = path.resolve(import.meta.dirname, '../..');
export const mainScript = path.join(root, 'src/main.ts');
export const adminEmail = 'admin@example.com';
export const adminPassword = 'correct horse battery';

export interface Service {
  url: string;
  /** The DNS server's port (UDP and TCP on 127.0.0.1). */
  dnsPort: number;
  /** The protection proxy's ports on 127.0.0.1 (0 without the proxy role). */
  proxyHttpPort: number;
  proxyHttpsPort: number;
  engine: Engine;
  dataDir: string;
  /** The service's process id: a child's with `{ process: true }`, else this process's. */
  pid: number;
  /** The service's whole environment: `loadConfig` reads only this (a spawned process gets nothing else). */
  env: NodeJS.ProcessEnv;
  /** Everything the service wrote to stdout so far. */
  output(): string;
  /**
   * Stops as the signal asks and resolves to the exit code (or, killed, the signal): SIGTERM and
   * SIGINT shut down gracefully (0); anything else, SIGKILL say, needs `{ process: true }`.
   */
  stop(signal?: NodeJS.Signals): Promise<number | string>;
  /** Starts a new service on the same data dir and database. */
  restart(): Promise<Service>;
  /**
   * Starts another service on the same data dir and database with some settings changed (another
   * node, say `EDGEPLANE_ROLES: 'dns'`); disposing of it only stops it.
   */
  sibling(env: Record<string, string>): Promise<Service>;
  /** Stops the service and removes its data dir and database. */
  dispose(): Promise<void>;
}

export interface StartOptions {
  engine: Engine;
  env?: Record<string, string>;
  /** Runs `node src/main.ts serve` as a child process (signals, kill -9, exit codes). */
  process?: boolean;
}

type Launch = (engine: Engine, dataDir: string, env: NodeJS.ProcessEnv, cleanup: () => Promise<void>) => Promise<Service>;

export async function startService(options: StartOptions): Promise<Service> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'edgeplane-test-'));
  const database: TestDatabase | undefined = options.engine === 'postgres' ? await createPostgresDatabase() : undefined;
  const env: NodeJS.ProcessEnv = {
    PATH: process.env['PATH'],
    EDGEPLANE_API_LISTEN: '127.0.0.1:0',
    EDGEPLANE_DNS_LISTEN: '127.0.0.1:0',
    // One DNS thread per test service keeps the suite light; the workers have a test of their own.
    EDGEPLANE_DNS_WORKERS: '1',
    EDGEPLANE_PROXY_HTTP_LISTEN: '127.0.0.1:0',
    EDGEPLANE_PROXY_HTTPS_LISTEN: '127.0.0.1:0',
    EDGEPLANE_PROXY_WORKERS: '1',
    // Test origins listen on loopback.
    EDGEPLANE_PROXY_ALLOW_PRIVATE_ORIGINS: '1',
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
  const launch = options.process === true ? launchProcess : launchInProcess;
  try {
    return await launch(options.engine, dataDir, env, cleanup);
  } catch (e) {
    await cleanup();
    throw e;
  }
}

/** The service in this process, configured from `env` alone, as `serve` would be. */
const launchInProcess: Launch = async (engine, dataDir, env, cleanup) => {
  let written = '';
  const output = new Writable({
    decodeStrings: false,
    write(chunk: string | Buffer, _encoding, done) {
      written += chunk.toString();
      done();
    },
  });
  const config = loadConfig(env);
  const logger = createLogger(config.logLevel, output);
  const service = await startApp(config, logger, output);
  let stopped: Promise<number> | undefined;
  const stop = async (signal: NodeJS.Signals = 'SIGTERM') => {
    if (signal !== 'SIGTERM' && signal !== 'SIGINT') {
      throw new Error(`an in-process service cannot take ${signal}: start it with startService({ process: true })`);
    }
    stopped ??= shutDown(service, logger, signal);
    return stopped;
  };
  return {
    url: service.url ?? '',
    dnsPort: service.dnsPort ?? 0,
    proxyHttpPort: service.proxyHttpPort ?? 0,
    proxyHttpsPort: service.proxyHttpsPort ?? 0,
    engine,
    dataDir,
    pid: process.pid,
    env,
    output: () => written,
    stop,
    restart: () => launchInProcess(engine, dataDir, env, cleanup),
    sibling: (extra) => launchInProcess(engine, dataDir, { ...env, ...extra }, () => Promise.resolve()),
    dispose: async () => {
      await stop();
      await cleanup();
    },
  };
};

// A child outliving the tests (one timed out before disposing of it, say) would keep its ports.
const children = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});

const launchProcess: Launch = async (engine, dataDir, env, cleanup) => {
  const child: ChildProcess = spawn(process.execPath, [mainScript, 'serve'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | string>((resolve) =>
    child.on('exit', (code, signal) => {
      children.delete(child);
      resolve(code ?? signal ?? -1);
    }),
  );

  // A process serves the roles it was given: only those announce an address ('' and 0 for the others).
  const roles = (env['EDGEPLANE_ROLES'] ?? 'api,dns,proxy').split(',');
  const { url, dnsPort, proxyHttpPort, proxyHttpsPort } = await new Promise<{ url: string; dnsPort: number; proxyHttpPort: number; proxyHttpsPort: number }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`service did not start in 20 s:\n${stdout}\n${stderr}`)), 20_000);
    const onData = () => {
      const api = /"url":"(http:\/\/[^"]+)"/.exec(stdout)?.[1];
      const dns = /"dns":"[^"]*:(\d+)"/.exec(stdout)?.[1];
      const proxy = /"http":"[^"]*:(\d+)","https":"[^"]*:(\d+)"/.exec(stdout);
      if ((api !== undefined || !roles.includes('api')) && (dns !== undefined || !roles.includes('dns')) && (proxy !== null || !roles.includes('proxy'))) {
        clearTimeout(timer);
        child.stdout?.off('data', onData);
        resolve({ url: api ?? '', dnsPort: Number(dns ?? 0), proxyHttpPort: Number(proxy?.[1] ?? 0), proxyHttpsPort: Number(proxy?.[2] ?? 0) });
      }
    };
    child.stdout?.on('data', onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`service exited (${code}) before listening:\n${stdout}\n${stderr}`));
    });
  }).catch(async (e: unknown) => {
    child.kill('SIGKILL');
    await exited;
    throw e;
  });

  const stop = async (signal: NodeJS.Signals = 'SIGTERM') => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    return exited;
  };
  return {
    url,
    dnsPort,
    proxyHttpPort,
    proxyHttpsPort,
    engine,
    dataDir,
    pid: child.pid ?? 0,
    env,
    output: () => stdout,
    stop,
    restart: () => launchProcess(engine, dataDir, env, cleanup),
    sibling: (extra) => launchProcess(engine, dataDir, { ...env, ...extra }, () => Promise.resolve()),
    dispose: async () => {
      await stop('SIGKILL');
      await cleanup();
    },
  };
};
