// Debian's pebble (Let's Encrypt's ACME test server) for managed-certificate tests: its directory
// over HTTPS with a test CA made here, HTTP-01 validated against the port we name, host names
// resolved through the DNS server we name (edgeplane's own, or a test's), no sleeps, every
// authorization validated afresh.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { certificateChain } from './certificates.ts';

// A pebble outliving its test (one timed out before stopping it) would keep its ports.
const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/** Why ACME tests cannot run here, or undefined when they can. */
export function pebbleMissing(): string | undefined {
  try {
    execFileSync('pebble', ['-h'], { stdio: 'ignore' });
    return undefined;
  } catch (e) {
    // `pebble -h` exits 2 after printing its usage: only a missing binary is ENOENT.
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') return undefined;
    return 'pebble is not installed (apt-get install pebble): ACME tests are SKIPPED';
  }
}

export interface PebbleSite {
  /** The directory URL, https://127.0.0.1:port/dir. */
  directory: string;
  /** A PEM file of the CA the directory's HTTPS certificate comes from. */
  caFile: string;
  /** Starts pebble: HTTP-01 on `httpPort` of whatever `dnsPort` (UDP, 127.0.0.1) resolves names to. */
  start(options: { httpPort: number; dnsPort: number; validitySeconds?: number }): Promise<Pebble>;
  /** Removes the files (after stopping pebble). */
  remove(): void;
}

export interface Pebble {
  /** Pebble's issuing root, fetched from its management interface: what verifies the chains it issues. */
  root(): Promise<string>;
  /** Certificates issued so far. */
  issued(): number;
  output(): string;
  stop(): Promise<void>;
}

/** A free TCP port on 127.0.0.1 below the ephemeral range (32768 up), where kernel-chosen ports never land. */
async function freeLowPort(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    const free = await new Promise<boolean>((resolve) => {
      const probe = net.createServer();
      probe.once('error', () => resolve(false));
      probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
    });
    if (free) return port;
  }
}

function get(url: string, ca: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    https.get(url, { ca, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (d: string) => (body += d)).on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    }).on('error', reject);
  });
}

/**
 * Ports, certificates and files for one pebble, made before the service that uses it starts (the
 * service is configured with the directory); pebble itself starts once the proxy's port is known.
 */
export async function pebbleSite(): Promise<PebbleSite> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'edgeplane-pebble-'));
  const file = (name: string) => path.join(dir, name);
  const pki = certificateChain(['localhost', '127.0.0.1']);
  fs.writeFileSync(file('ca.pem'), pki.root);
  fs.writeFileSync(file('cert.pem'), pki.chain);
  fs.writeFileSync(file('key.pem'), pki.key);
  const [acmePort, managementPort, tlsPort] = [await freeLowPort(), await freeLowPort(), await freeLowPort()];
  const directory = `https://127.0.0.1:${String(acmePort)}/dir`;

  return {
    directory,
    caFile: file('ca.pem'),
    remove: () => fs.rmSync(dir, { recursive: true, force: true }),
    start: async ({ httpPort, dnsPort, validitySeconds }) => {
      fs.writeFileSync(
        file('pebble.json'),
        JSON.stringify({
          pebble: {
            listenAddress: `127.0.0.1:${String(acmePort)}`,
            managementListenAddress: `127.0.0.1:${String(managementPort)}`,
            certificate: file('cert.pem'),
            privateKey: file('key.pem'),
            httpPort,
            tlsPort,
            ocspResponderURL: '',
            externalAccountBindingRequired: false,
            ...(validitySeconds === undefined ? {} : { certificateValidityPeriod: validitySeconds }),
          },
        }),
      );
      const child: ChildProcess = spawn('pebble', ['-config', file('pebble.json'), '-dnsserver', `127.0.0.1:${String(dnsPort)}`], {
        env: { PATH: process.env['PATH'], PEBBLE_VA_NOSLEEP: '1', PEBBLE_VA_ALWAYS_VALID: '0', PEBBLE_AUTHZREUSE: '0', PEBBLE_WFE_NONCEREJECT: '0' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      running.add(child);
      let output = '';
      child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
      child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
      const exited = new Promise<void>((resolve) =>
        child.once('exit', () => {
          running.delete(child);
          resolve();
        }),
      );
      const stop = async () => {
        child.kill('SIGTERM');
        await exited;
      };
      // Ready once the directory answers.
      const deadline = Date.now() + 10_000;
      for (;;) {
        try {
          if ((await get(directory, pki.root)).status === 200) break;
        } catch {
          // not listening yet
        }
        if (child.exitCode !== null || Date.now() > deadline) {
          await stop();
          throw new Error(`pebble did not start:\n${output}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return {
        root: async () => (await get(`https://127.0.0.1:${String(managementPort)}/roots/0`, pki.root)).body,
        issued: () => output.match(/Issued certificate serial/g)?.length ?? 0,
        output: () => output,
        stop,
      };
    },
  };
}
