// A real HTTP and HTTPS server whose handler builds an Exchange and runs a policy's steps as the
// proxy's pipeline does (guards, a 'pass' skipping the rest of the guards, then rewrites), then
// answers 200 `origin` or the step's Answer, with exchange.answerHeaders. The client address is the
// socket's, or the `x-test-client` header's when sent (to be any address of the world in one test).
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { geoLookup, loadGeoData, type GeoLookup } from '../../../src/geo/geoip.ts';
import type { Answer, Exchange, Step } from '../../../src/security/proxy/exchange.ts';
import type { ResourcePolicy } from '../../../src/security/proxy/policy.ts';
import { RepeatCounter } from '../../../src/security/proxy/mitigation/repeat-counter.ts';
import { localCounters } from '../../../src/security/proxy/rate/local-counters.ts';
import { compiledSteps } from '../../../src/security/proxy/steps/policy-steps.ts';
import type { StepDeps } from '../../../src/security/proxy/steps/step-deps.ts';
import { settingDefaults, type Settings } from '../../../src/security/resource-input.ts';
import { selfSignedCertificate } from '../../support/certificates.ts';

export type PolicyChanges = Omit<Partial<ResourcePolicy>, 'settings'> & { settings?: Partial<Settings> };

let nextId = 1;

export function testPolicy(changes: PolicyChanges = {}): ResourcePolicy {
  const { settings, ...rest } = changes;
  return {
    id: nextId++,
    accountId: 1,
    name: 'example.com',
    hosts: ['example.com'],
    served: true,
    origins: [{ id: 1, host: '127.0.0.1', port: 9, weight: 1, mode: 'primary' }],
    rules: [],
    whitelist: [],
    blacklist: [],
    tls: undefined,
    wantsManagedCertificate: false,
    ...rest,
    settings: { ...settingDefaults, ...settings },
  };
}

let geo: Promise<GeoLookup> | undefined;

/** The proxy's settings as the steps see them, at their defaults. */
const defaultSettings: StepDeps['settings'] = { globalWhitelist: [], publicHttpsPort: 443, botExemptPaths: ['/api/*', '/.well-known/*'], botClearanceSeconds: 3600, attackLimits: { clientRate: 20, clientBurst: 100, ruleShare: 0.5 } };

export async function testDeps(changes: Omit<Partial<StepDeps>, 'settings'> & { settings?: Partial<StepDeps['settings']> } = {}): Promise<StepDeps> {
  geo ??= loadGeoData({}).then(geoLookup);
  const { settings, ...rest } = changes;
  return {
    geo: await geo,
    counters: localCounters(),
    cookieSecret: randomBytes(32),
    waf: () => undefined,
    challengesServed: new RepeatCounter(),
    ...rest,
    settings: { ...defaultSettings, ...settings },
  };
}

export interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface StepServer {
  http: string;
  https: string;
  /** Sends a request; `client` becomes the exchange's client address. */
  send(url: string, options?: { method?: string; client?: string; headers?: Record<string, string>; localAddress?: string }): Promise<Reply>;
  close(): Promise<void>;
}

const host = (req: http.IncomingMessage) => (req.headers.host ?? '').replace(/:\d+$/, '').toLowerCase();

async function run(steps: { guards: Step[]; rewrites: Step[] }, exchange: Exchange): Promise<Answer | undefined> {
  for (const guard of steps.guards) {
    const result = await guard(exchange);
    if (result === 'pass') break;
    if (result !== undefined) return result;
  }
  for (const rewrite of steps.rewrites) {
    const result = await rewrite(exchange);
    if (result !== undefined && result !== 'pass') return result;
  }
  return undefined;
}

let certificate: { crt: string; key: string } | undefined;

/** `underAttack`: the guards automatic mitigation puts in place (bot challenge, tightened rate limits). */
export async function startStepServer(policy: ResourcePolicy, deps: StepDeps, options: { underAttack?: boolean } = {}): Promise<StepServer> {
  const compiled = compiledSteps(policy, deps);
  const steps = { guards: options.underAttack === true ? compiled.guardsUnderAttack : compiled.guards, rewrites: compiled.rewrites };
  const handler = (secure: boolean) => (req: http.IncomingMessage, res: http.ServerResponse) => {
    const url = req.url ?? '/';
    const query = url.indexOf('?');
    const forced = req.headers['x-test-client'];
    const exchange: Exchange = {
      req,
      res,
      client: typeof forced === 'string' ? forced : (req.socket.remoteAddress ?? '').replace(/^::ffff:/, ''),
      secure,
      host: host(req),
      method: req.method ?? 'GET',
      path: query < 0 ? url : url.slice(0, query),
      answerHeaders: {},
    };
    run(steps, exchange).then(
      (answer) => {
        const type = answer?.type === undefined ? {} : { 'content-type': answer.type };
        res.writeHead(answer?.status ?? 200, { ...exchange.answerHeaders, ...type, ...answer?.headers });
        res.end(answer === undefined ? 'origin' : (answer.body ?? ''));
      },
      (error: unknown) => {
        res.writeHead(500);
        res.end(String(error));
      },
    );
  };
  certificate ??= selfSignedCertificate('example.com');
  const plain = http.createServer(handler(false));
  const tls = https.createServer({ cert: certificate.crt, key: certificate.key }, handler(true));
  await Promise.all([plain, tls].map((server) => new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))));
  const base = (server: http.Server, scheme: string) => `${scheme}://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const agents = { plain: new http.Agent({ keepAlive: true }), tls: new https.Agent({ keepAlive: true, rejectUnauthorized: false }) };
  return {
    http: base(plain, 'http'),
    https: base(tls, 'https'),
    send(url, options = {}) {
      const secure = url.startsWith('https:');
      const headers: Record<string, string> = { host: 'example.com', ...options.headers };
      if (options.client !== undefined) headers['x-test-client'] = options.client;
      return new Promise((resolve, reject) => {
        const request = (secure ? https : http).request(
          url,
          {
            method: options.method ?? 'GET',
            headers,
            ...(options.localAddress === undefined ? { agent: secure ? agents.tls : agents.plain } : { localAddress: options.localAddress, agent: false }),
            ...(secure ? { rejectUnauthorized: false } : {}),
          },
          (response) => {
            let body = '';
            response.setEncoding('utf8');
            response.on('data', (chunk: string) => (body += chunk));
            response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body }));
          },
        );
        request.on('error', reject);
        request.end();
      });
    },
    async close() {
      agents.plain.destroy();
      agents.tls.destroy();
      plain.closeAllConnections();
      tls.closeAllConnections();
      await Promise.all([plain, tls].map((server) => new Promise((resolve) => server.close(resolve))));
      await deps.counters.close();
    },
  };
}
