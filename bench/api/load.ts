// Closed-loop HTTP load generator on node:http (no undici: it is not a dependency, and node:http with
// a keep-alive Agent is what most Node API clients use). Each client issues its next request as soon
// as the previous one finished, so the offered load adapts to the server; latency is measured per
// request with process.hrtime.bigint.
import http from 'node:http';

export interface Endpoint {
  host: string;
  port: number;
}

export interface RequestSpec {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}

export interface Response {
  status: number;
  body: Buffer;
}

/** Requests that take longer are failed: a stuck server must not hang the benchmark. */
const requestTimeoutMs = 30_000;

export function keepAliveAgent(sockets: number): http.Agent {
  // maxSockets = concurrency: every client keeps its own connection, as a real client pool would.
  return new http.Agent({ keepAlive: true, maxSockets: sockets, maxFreeSockets: sockets });
}

/** Sockets seen per agent: a server that closes connections after each response (PowerDNS 4.7 does)
 * pays a TCP handshake per request, and its accept queue can overflow; this makes that visible. */
const opened = new WeakMap<http.Agent, number>();
const seen = new WeakSet<object>();

export function connectionsOpened(agent: http.Agent): number {
  return opened.get(agent) ?? 0;
}

export function send(agent: http.Agent, endpoint: Endpoint, spec: RequestSpec): Promise<Response> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { ...spec.headers };
    if (spec.body !== undefined) {
      headers['content-type'] ??= 'application/json';
      headers['content-length'] = Buffer.byteLength(spec.body);
    }
    const request = http.request(
      { agent, host: endpoint.host, port: endpoint.port, method: spec.method, path: spec.path, headers, timeout: requestTimeoutMs },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks) }));
        response.on('error', reject);
      },
    );
    request.once('socket', (socket) => {
      if (seen.has(socket)) return;
      seen.add(socket);
      opened.set(agent, connectionsOpened(agent) + 1);
    });
    request.on('timeout', () => request.destroy(new Error(`no response in ${requestTimeoutMs} ms`)));
    request.on('error', reject);
    request.end(spec.body);
  });
}

/** Sends a request and throws unless the status is 2xx; for setup steps, which must not fail silently. */
export async function sendOk(agent: http.Agent, endpoint: Endpoint, spec: RequestSpec): Promise<Response> {
  const response = await send(agent, endpoint, spec);
  if (response.status < 200 || response.status > 299) {
    throw new Error(`${spec.method} ${spec.path} → ${response.status}: ${response.body.toString().slice(0, 500)}`);
  }
  return response;
}

export interface Latencies {
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

/** Nearest-rank percentiles in milliseconds. */
export function percentiles(samplesMs: Float64Array): Latencies {
  const sorted = samplesMs.slice().sort();
  const at = (p: number) => (sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!);
  return { p50: at(50), p95: at(95), p99: at(99), max: sorted.length === 0 ? NaN : sorted[sorted.length - 1]! };
}

export interface LoadResult {
  ok: number;
  errors: number;
  /** From the start to the last response, including requests still in flight at the deadline. */
  elapsedS: number;
  /** Latencies of successful requests only; errors are counted, not timed. */
  latency: Latencies;
  /** Seconds into the run at which the slowest successful request was sent: tells a one-off stall at
   * the start (connection setup, leftovers of the previous scenario) from stalls during the run. */
  slowestAtS: number;
  /** Counts by status code or network error message. */
  errorKinds: Map<string, number>;
  /** The first few error responses, to print. */
  errorSamples: string[];
  /** CPU the load generator itself used, in cores (1 = one core busy the whole time). */
  loaderCores: number;
  /** TCP connections the clients opened. */
  connections: number;
}

class Recorder {
  ok = 0;
  errors = 0;
  slowestMs = -1;
  slowestAtNs = 0n;
  private samples = new Float64Array(1 << 16);
  errorKinds = new Map<string, number>();
  errorSamples: string[] = [];

  success(ms: number, sentNs: bigint): void {
    if (ms > this.slowestMs) {
      this.slowestMs = ms;
      this.slowestAtNs = sentNs;
    }
    if (this.ok === this.samples.length) {
      const grown = new Float64Array(this.samples.length * 2);
      grown.set(this.samples);
      this.samples = grown;
    }
    this.samples[this.ok++] = ms;
  }

  failure(kind: string, detail: string): void {
    this.errors++;
    this.errorKinds.set(kind, (this.errorKinds.get(kind) ?? 0) + 1);
    if (this.errorSamples.length < 5) this.errorSamples.push(`${kind}: ${detail.replace(/\s+/g, ' ').slice(0, 300)}`);
  }

  latencies(): Float64Array {
    return this.samples.subarray(0, this.ok);
  }
}

async function timed(agent: http.Agent, endpoint: Endpoint, spec: RequestSpec, recorder: Recorder): Promise<Response | undefined> {
  const started = process.hrtime.bigint();
  try {
    const response = await send(agent, endpoint, spec);
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    if (response.status >= 200 && response.status <= 299) recorder.success(ms, started);
    else recorder.failure(`HTTP ${response.status}`, response.body.toString());
    return response;
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    recorder.failure(message, message);
    return undefined;
  }
}

function result(recorder: Recorder, startedNs: bigint, cpuBefore: NodeJS.CpuUsage, agent: http.Agent): LoadResult {
  const elapsedS = Number(process.hrtime.bigint() - startedNs) / 1e9;
  const cpu = process.cpuUsage(cpuBefore);
  return {
    ok: recorder.ok,
    errors: recorder.errors,
    elapsedS,
    latency: percentiles(recorder.latencies()),
    slowestAtS: recorder.ok === 0 ? NaN : Number(recorder.slowestAtNs - startedNs) / 1e9,
    errorKinds: recorder.errorKinds,
    errorSamples: recorder.errorSamples,
    loaderCores: (cpu.user + cpu.system) / 1e6 / elapsedS,
    connections: connectionsOpened(agent),
  };
}

/**
 * `concurrency` clients, each looping back-to-back for `durationMs`; `request(client, seq)` builds the
 * client's seq-th request, so callers can give every client its own names.
 */
export async function closedLoop(
  endpoint: Endpoint,
  concurrency: number,
  durationMs: number,
  request: (client: number, seq: number) => RequestSpec,
): Promise<LoadResult> {
  // A fresh agent per scenario: idle keep-alive sockets from an earlier scenario may have been closed by
  // the server (PowerDNS drops idle connections after webserver-connection-timeout), which would show up
  // as spurious ECONNRESET errors here.
  const agent = keepAliveAgent(concurrency);
  const recorder = new Recorder();
  const cpuBefore = process.cpuUsage();
  const started = process.hrtime.bigint();
  const deadline = started + BigInt(durationMs) * 1_000_000n;
  const client = async (index: number) => {
    for (let seq = 0; process.hrtime.bigint() < deadline; seq++) {
      await timed(agent, endpoint, request(index, seq), recorder);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, (_, index) => client(index)));
  const measured = result(recorder, started, cpuBefore, agent);
  agent.destroy();
  return measured;
}

/** `count` requests spread over `concurrency` clients; for setup (loading a zone), not measured. */
export async function runCount(
  endpoint: Endpoint,
  concurrency: number,
  count: number,
  request: (index: number) => RequestSpec,
): Promise<LoadResult> {
  const agent = keepAliveAgent(concurrency);
  const recorder = new Recorder();
  const cpuBefore = process.cpuUsage();
  const started = process.hrtime.bigint();
  let next = 0;
  const client = async () => {
    while (next < count) await timed(agent, endpoint, request(next++), recorder);
  };
  await Promise.all(Array.from({ length: concurrency }, () => client()));
  const measured = result(recorder, started, cpuBefore, agent);
  agent.destroy();
  return measured;
}

export interface SequentialResult extends LoadResult {
  /** Body of the last successful response (its size is reported; its content checked). */
  body: Buffer;
}

/** `warmup` unmeasured then `count` measured requests, one at a time (latency, not throughput). */
export async function sequential(endpoint: Endpoint, warmup: number, count: number, spec: RequestSpec): Promise<SequentialResult> {
  const agent = keepAliveAgent(1);
  const warm = new Recorder();
  for (let i = 0; i < warmup; i++) await timed(agent, endpoint, spec, warm);
  const recorder = new Recorder();
  const cpuBefore = process.cpuUsage();
  const started = process.hrtime.bigint();
  let body: Buffer = Buffer.alloc(0);
  for (let i = 0; i < count; i++) {
    const response = await timed(agent, endpoint, spec, recorder);
    if (response && response.status >= 200 && response.status <= 299) body = response.body;
  }
  const measured = result(recorder, started, cpuBefore, agent);
  agent.destroy();
  return { ...measured, body };
}
