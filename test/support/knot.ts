// Knot DNS (knotd) as a reference authoritative server for differential tests: runs unprivileged
// on a free port with its config, zone files and state in a scratch directory.
import { spawn, type ChildProcess } from 'node:child_process';
import dgram from 'node:dgram';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import packet from 'dns-packet';
import { freePort } from './free-port.ts';

export interface KnotZone {
  name: string;
  /** The zone file's text (BIND master file format). */
  text: string;
}

export interface Knot {
  port: number;
  /** Everything knotd wrote to stdout and stderr so far. */
  log(): string;
  stop(): Promise<void>;
}

/** The path of an executable on the PATH, or undefined. */
export function onPath(command: string): string | undefined {
  for (const dir of (process.env['PATH'] ?? '').split(path.delimiter)) {
    if (dir === '') continue;
    const candidate = path.join(dir, command);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  // Debian installs knotd in /usr/sbin, which an unprivileged PATH may lack.
  for (const dir of ['/usr/sbin', '/usr/local/sbin']) {
    const candidate = path.join(dir, command);
    if (fs.existsSync(candidate)) return candidate;
  }
  return undefined;
}

function soaAnswered(port: number, zone: string): Promise<boolean> {
  const socket = dgram.createSocket('udp4');
  const query = packet.encode({ type: 'query', id: 4242, flags: 0, questions: [{ name: zone, type: 'SOA', class: 'IN' }] });
  return new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => {
      socket.close();
      resolve(false);
    }, 200);
    socket.on('error', () => undefined);
    socket.once('message', (reply) => {
      clearTimeout(timer);
      socket.close();
      // NOERROR with an answer: the zone is loaded.
      resolve(reply.length >= 12 && (reply.readUInt16BE(2) & 0xf) === 0 && reply.readUInt16BE(6) > 0);
    });
    socket.send(query, port, '127.0.0.1');
  });
}

/**
 * Starts knotd serving `zones`; resolves once it answers the SOA of every zone. `port` (one chosen
 * with freePort, say, to configure a service before knotd runs) is used as is; without it a free
 * port is chosen.
 */
export async function startKnot(zones: KnotZone[], port?: number): Promise<Knot> {
  // The port is free when chosen but may be taken before knotd binds it: then try another.
  for (let attempt = 1; ; attempt++) {
    try {
      return await launch(port ?? (await freePort()), serving(zones.map((z) => z.name)), (dir) => zones.flatMap((zone) => {
        const file = path.join(dir, `${zone.name}.zone`);
        fs.writeFileSync(file, zone.text);
        return [`  - domain: ${zone.name}`, `    file: ${file}`];
      }));
    } catch (e) {
      if (attempt >= 3 || port !== undefined) throw e;
    }
  }
}

/**
 * Starts knotd on `port` as a secondary of `zone`: it transfers the zone from the primary at
 * 127.0.0.1:`primaryPort` and takes NOTIFY from 127.0.0.1, both signed with `key` when given.
 * Resolves once it answers the zone's SOA.
 */
export function startKnotSecondary(port: number, zone: string, primaryPort: number, key?: { name: string; algorithm: string; secret: string }): Promise<Knot> {
  const keyLine = key === undefined ? [] : [`    key: ${key.name}`];
  return launch(port, serving([zone]), () => [`  - domain: ${zone}`, '    master: primary', '    acl: notify-from-primary'], [
    ...(key === undefined ? [] : ['key:', `  - id: ${key.name}`, `    algorithm: ${key.algorithm}`, `    secret: ${key.secret}`]),
    'remote:',
    '  - id: primary',
    `    address: 127.0.0.1@${String(primaryPort)}`,
    ...keyLine,
    'acl:',
    '  - id: notify-from-primary',
    '    address: 127.0.0.1',
    ...keyLine,
    '    action: notify',
  ]);
}

/**
 * Starts knotd on `port` as a consumer of the catalog zone `catalog` of the primary at
 * 127.0.0.1:`primaryPort` (RFC 9432): it serves, as a secondary, every zone the catalog lists.
 */
export function startKnotCatalogConsumer(port: number, catalog: string, primaryPort: number): Promise<Knot> {
  const secondary = ['    master: primary', '    acl: notify-from-primary'];
  return launch(
    port,
    // Knot does not answer queries for a catalog it interprets: its log says when it has read one.
    (_port, log) => Promise.resolve(log.includes(`[${catalog}.] catalog reloaded`)),
    () => [`  - domain: ${catalog}`, ...secondary, '    catalog-role: interpret', '    catalog-template: member'],
    ['remote:', '  - id: primary', `    address: 127.0.0.1@${String(primaryPort)}`, 'acl:', '  - id: notify-from-primary', '    address: 127.0.0.1', '    action: notify'],
    ['  - id: member', ...secondary, '    zonefile-sync: -1', '    journal-content: none'],
  );
}

/** Ready: every one of the zones has its SOA answered. */
const serving = (zones: string[]) => async (port: number) => {
  for (const zone of zones) if (!(await soaAnswered(port, zone))) return false;
  return true;
};

/** `ready(port, log)` says when knotd is ready for the test. */
async function launch(port: number, ready: (port: number, log: string) => Promise<boolean>, zoneLines: (dir: string) => string[], sections: string[] = [], templates: string[] = []): Promise<Knot> {
  const knotd = onPath('knotd');
  if (knotd === undefined) throw new Error('knotd is not installed');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'edgeplane-knot-'));
  const config = [
    'server:',
    `  listen: 127.0.0.1@${port}`,
    `  rundir: ${dir}`,
    '  udp-workers: 1',
    '  tcp-workers: 1',
    '  background-workers: 1',
    'log:',
    '  - target: stderr',
    '    any: info',
    'database:',
    `  storage: ${dir}`,
    // Keys, remotes and ACLs come before the templates and zones that name them.
    ...sections,
    'template:',
    '  - id: default',
    '    semantic-checks: off',
    // Serve the file as written: no journal, no re-signing, no writing back.
    '    zonefile-sync: -1',
    '    journal-content: none',
    ...templates,
    'zone:',
    ...zoneLines(dir),
    '',
  ].join('\n');
  const configFile = path.join(dir, 'knot.conf');
  fs.writeFileSync(configFile, config);

  const child: ChildProcess = spawn(knotd, ['-c', configFile], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), 3000);
    await exited;
    clearTimeout(killer);
    fs.rmSync(dir, { recursive: true, force: true });
  };

  const started = Date.now();
  while (!(await ready(port, output))) {
    if (child.exitCode !== null || child.signalCode !== null || Date.now() - started > 15_000) {
      await stop();
      throw new Error(`knotd did not become ready on port ${String(port)}:\n${config}\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { port, log: () => output, stop };
}
