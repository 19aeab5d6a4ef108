// The reference WAF: Debian's Apache httpd with mod_security2 and the OWASP Core Rule Set, from a
// configuration generated into a scratch directory, in the foreground, in front of the bench's origin.
// Two name-based virtual hosts: the resource with the WAF on (the default, so a corpus request whose
// Host names something else still meets the rules) and one with `SecRuleEngine Off`.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sleep, terminate, watchLog } from '../api/server.ts';
import { findProgram, hasExited, spawnPinned } from '../dns/server.ts';
import type { ProxyServer } from '../proxy/server.ts';
import { exchange } from './raw-exchange.ts';

export const modulesDir = '/usr/lib/apache2/modules';
export const crsRulesDir = '/usr/share/modsecurity-crs/rules';
const unicodeMapping = '/etc/modsecurity/unicode.mapping';

export function apacheVersion(): string {
  const { stdout } = spawnSync(findProgram('apache2') ?? 'apache2', ['-v'], { encoding: 'utf8' });
  return /Apache\/(\S+)/.exec(stdout)?.[1] ?? '?';
}

/** The CRS release the rules say they are (their `ver` action). */
export function crsVersion(): string {
  try {
    return /ver:'OWASP_CRS\/([^']+)'/.exec(fs.readFileSync(path.join(crsRulesDir, 'REQUEST-901-INITIALIZATION.conf'), 'utf8'))?.[1] ?? '?';
  } catch {
    return '?';
  }
}

export interface ApacheOptions {
  port: number;
  originPort: number;
  /** Host names of the resource with the WAF on and of the one with it off. */
  wafOn: string;
  wafOff: string;
  paranoiaLevel: number;
  anomalyThreshold: number;
  cpus: string | undefined;
}

/**
 * ModSecurity's settings as Debian's modsecurity.conf-recommended has them for requests (body access
 * and limits, the JSON and XML body processors, refusing bodies it cannot parse), with the engine
 * set per virtual host, no audit log and no response body inspection (edgeplane inspects requests
 * only); then the CRS at the given paranoia level and inbound anomaly threshold.
 */
function modsecurity(dir: string, options: ApacheOptions): string[] {
  return [
    'SecRequestBodyAccess On',
    `SecRule REQUEST_HEADERS:Content-Type "^(?:application(?:/soap\\+|/)|text/)xml" "id:200000,phase:1,t:none,t:lowercase,pass,nolog,ctl:requestBodyProcessor=XML"`,
    `SecRule REQUEST_HEADERS:Content-Type "^application/json" "id:200001,phase:1,t:none,t:lowercase,pass,nolog,ctl:requestBodyProcessor=JSON"`,
    'SecRequestBodyLimit 13107200',
    'SecRequestBodyNoFilesLimit 131072',
    'SecRequestBodyInMemoryLimit 131072',
    'SecRequestBodyLimitAction Reject',
    `SecRule REQBODY_ERROR "!@eq 0" "id:200002,phase:2,t:none,log,deny,status:400,msg:'Failed to parse request body.'"`,
    `SecRule MULTIPART_STRICT_ERROR "!@eq 0" "id:200003,phase:2,t:none,log,deny,status:400,msg:'Multipart request body failed strict validation'"`,
    `SecRule MULTIPART_UNMATCHED_BOUNDARY "!@eq 0" "id:200004,phase:2,t:none,log,deny,msg:'Multipart parser detected a possible unmatched boundary.'"`,
    'SecPcreMatchLimit 100000',
    'SecPcreMatchLimitRecursion 100000',
    `SecRule TX:/^MSC_/ "!@streq 0" "id:200005,phase:2,t:none,deny,msg:'ModSecurity internal error flagged: %{MATCHED_VAR_NAME}'"`,
    'SecResponseBodyAccess Off',
    `SecTmpDir ${path.join(dir, 'modsec-tmp')}`,
    `SecDataDir ${path.join(dir, 'modsec-data')}`,
    'SecAuditEngine Off',
    'SecArgumentSeparator &',
    'SecCookieFormat 0',
    `SecUnicodeMapFile ${unicodeMapping} 20127`,
    'SecStatusEngine Off',
    // crs-setup.conf's required parts: the default actions (anomaly scoring) and the two settings measured.
    'SecDefaultAction "phase:1,log,auditlog,pass"',
    'SecDefaultAction "phase:2,log,auditlog,pass"',
    `SecAction "id:900000,phase:1,nolog,pass,t:none,setvar:tx.paranoia_level=${options.paranoiaLevel}"`,
    `SecAction "id:900110,phase:1,nolog,pass,t:none,setvar:tx.inbound_anomaly_score_threshold=${options.anomalyThreshold},setvar:tx.outbound_anomaly_score_threshold=4"`,
    'SecAction "id:900990,phase:1,nolog,pass,t:none,setvar:tx.crs_setup_version=334"',
    `Include ${crsRulesDir}/*.conf`,
  ];
}

function config(dir: string, options: ApacheOptions): string {
  const module = (name: string, file: string) => `LoadModule ${name}_module ${path.join(modulesDir, `mod_${file}.so`)}`;
  const vhost = (name: string, engine: 'On' | 'Off') => [
    `<VirtualHost 127.0.0.1:${options.port}>`,
    `  ServerName ${name}`,
    `  SecRuleEngine ${engine}`,
    // The request's id in the answer, to find ModSecurity's log lines (rule ids) about it.
    '  Header always set X-Unique-Id "%{UNIQUE_ID}e"',
    `  ProxyPass / http://127.0.0.1:${options.originPort}/`,
    '</VirtualHost>',
  ];
  return [
    `ServerRoot ${dir}`,
    `DefaultRuntimeDir ${dir}`,
    `PidFile ${path.join(dir, 'httpd.pid')}`,
    `Mutex file:${dir} default`,
    `ErrorLog ${path.join(dir, 'error.log')}`,
    // ModSecurity logs a rule's match at level error: warn keeps those lines and drops Apache's chatter.
    'LogLevel warn',
    module('mpm_event', 'mpm_event'),
    module('authz_core', 'authz_core'),
    module('unique_id', 'unique_id'),
    module('headers', 'headers'),
    module('proxy', 'proxy'),
    module('proxy_http', 'proxy_http'),
    module('security2', 'security2'),
    ...(process.getuid?.() === 0 ? ['User nobody', 'Group nogroup'] : []),
    `Listen 127.0.0.1:${options.port}`,
    `ServerName ${options.wafOn}`,
    // One child process, its threads serving every connection: as nginx's one worker and edgeplane's one thread.
    'StartServers 1',
    'ServerLimit 1',
    'ThreadsPerChild 64',
    'ThreadLimit 64',
    'MaxRequestWorkers 64',
    // The default (75) exceeds the one process's threads: Apache would try to start more every second.
    'MinSpareThreads 16',
    'MaxSpareThreads 64',
    'KeepAlive On',
    'MaxKeepAliveRequests 0',
    'KeepAliveTimeout 300',
    ...modsecurity(dir, options),
    ...vhost(options.wafOn, 'On'),
    ...vhost(options.wafOff, 'Off'),
    '',
  ].join('\n');
}

export interface ApacheServer extends ProxyServer {
  /** The error log so far: ModSecurity's lines about each request. */
  errorLog(): string;
}

/** Apache with ModSecurity and the CRS, answering (any status) before it counts as started. */
export async function startApache(options: ApacheOptions): Promise<ApacheServer> {
  const binary = findProgram('apache2');
  if (binary === undefined) throw new Error('apache2 is not installed');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'apache-waf-bench-'));
  // The child runs as nobody: it reads the configuration's directory and writes ModSecurity's.
  fs.chmodSync(dir, 0o755);
  for (const sub of ['modsec-tmp', 'modsec-data']) {
    fs.mkdirSync(path.join(dir, sub));
    fs.chmodSync(path.join(dir, sub), 0o1777);
  }
  const configFile = path.join(dir, 'httpd.conf');
  fs.writeFileSync(configFile, config(dir, options));
  const child = spawnPinned(binary, ['-f', configFile, '-DFOREGROUND'], options.cpus, { PATH: process.env['PATH'] ?? '/usr/bin:/bin' });
  const log = watchLog(child);
  const stop = async () => {
    await terminate(child);
    fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    const deadline = Date.now() + 20_000;
    const probe = Buffer.from(`GET / HTTP/1.1\r\nHost: ${options.wafOff}\r\nConnection: close\r\n\r\n`);
    while (!('status' in (await exchange(options.port, probe, 1000)))) {
      if (hasExited(child)) throw new Error('apache2 exited');
      if (Date.now() > deadline) throw new Error(`no answer on port ${options.port} within 20 s`);
      await sleep(100);
    }
    return {
      name: 'ModSecurity+CRS',
      pid: child.pid!,
      httpPort: options.port,
      httpsPort: 0,
      description:
        `Apache ${apacheVersion()} (mpm_event, 1 process × 64 threads) with mod_security2 and the Core Rule Set ${crsVersion()} from ${crsRulesDir}: ` +
        `paranoia level ${options.paranoiaLevel}, inbound anomaly threshold ${options.anomalyThreshold}, request bodies inspected (form, JSON, XML, multipart), no response inspection, no audit log, ` +
        `ProxyPass to the origin${options.cpus === undefined ? '' : `, CPUs ${options.cpus}`}`,
      log,
      hasExited: () => hasExited(child),
      stop,
      errorLog: () => fs.readFileSync(path.join(dir, 'error.log'), 'utf8'),
    };
  } catch (e) {
    let errors = '';
    try {
      errors = fs.readFileSync(path.join(dir, 'error.log'), 'utf8').slice(-4000);
    } catch {
      // never written
    }
    const text = `${log.tail()}${errors}`;
    await stop();
    throw new Error(`Apache did not start: ${e instanceof Error ? e.message : String(e)}\n${text}`, { cause: e });
  }
}

/** The CRS rule ids ModSecurity logged per request id (mod_unique_id), from the error log. */
export function ruleIdsByRequest(errorLog: string): Map<string, string[]> {
  const byRequest = new Map<string, string[]>();
  for (const line of errorLog.split('\n')) {
    const rule = /\[id "(\d+)"\]/.exec(line)?.[1];
    const request = /\[unique_id "([^"]+)"\]/.exec(line)?.[1];
    if (rule === undefined || request === undefined || rule === '949110' || rule === '980130') continue;
    byRequest.set(request, [...(byRequest.get(request) ?? []), rule]);
  }
  return byRequest;
}
