// The WAF of a proxy thread: the Core Rule Set read once (at the first resource with the WAF on,
// shared by all of them and by every proxy server of the thread), and the inspection of one
// request: its head, and its body's first `bodyLimit` bytes held back from the origin until the
// verdict (held-body.ts). Over the anomaly threshold: 403 with a request id (`block` mode), or
// forwarded with the finding logged (`log` mode).
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { requestHasBody, type Answer, type StepExchange, type StepResult } from '../exchange.ts';
import { ClientRequest } from '../http1/client-request.ts';
import type { ProxyLimits } from '../server-limits.ts';
import { inspect } from './engine.ts';
import { holdBody } from './held-body.ts';
import type { WafRequest } from './request-fields.ts';
import { loadRuleSet, type RuleSet } from './rule-set.ts';
import { ruleCategory } from './rule-category.ts';

export type WafMode = 'block' | 'log';

export interface WafOptions {
  /** The Core Rule Set's rules directory (its REQUEST-*.conf and .data files). */
  crsDir: string;
  mode: WafMode;
  paranoia: number;
  threshold: number;
  /** Bytes of a request body inspected; the rest streams to the origin unread. */
  bodyLimit: number;
  /** Milliseconds of inspection a request may cost (checked between rules); past it, refused. */
  budgetMs: number;
}

/** What the WAF found in a request, for the access log line and the metrics. */
export interface WafFinding {
  requestId: string;
  action: 'blocked' | 'logged';
  score: number;
  /** Matched detection rules, at most 16. */
  rules: number[];
  /** Their categories (sqli, xss, ...), each once. */
  categories: string[];
}

/** Matched rule ids kept for the log line: a request matching more is named by its first ones. */
const maxLoggedRules = 16;

const ruleSets = new Map<string, RuleSet>();

/** The thread's rule set from `dir`, parsed the first time it is asked for; the rules left out logged then. */
export function ruleSetOf(dir: string, logger: Logger): RuleSet {
  let rules = ruleSets.get(dir);
  if (rules === undefined) {
    const started = performance.now();
    rules = loadRuleSet(dir);
    ruleSets.set(dir, rules);
    warmUp(rules);
    const byReason: Record<string, number[]> = {};
    for (const { id, reason } of rules.skipped) (byReason[reason] ??= []).push(id);
    logger.info({ dir, rules: rules.ruleCount, skipped: rules.skipped.length, skippedByReason: byReason, ms: Math.round(performance.now() - started) }, 'WAF: Core Rule Set loaded');
  }
  return rules;
}

/** Requests of the usual shapes (a page, a form, JSON), through every rule of every paranoia level. */
const warmUpRequests: WafRequest[] = [
  { method: 'GET', url: '/search?q=shoes&page=2', protocol: 'HTTP/1.1', headers: ['host', 'site.example', 'user-agent', 'Mozilla/5.0', 'accept', 'text/html', 'cookie', 'session=abc'], client: '192.0.2.1', body: Buffer.alloc(0), id: 'warm-up' },
  { method: 'POST', url: '/form', protocol: 'HTTP/1.1', headers: ['host', 'site.example', 'content-type', 'application/x-www-form-urlencoded', 'content-length', '24'], client: '192.0.2.1', body: Buffer.from("name=O'Brien&note=a+%3C+b"), id: 'warm-up' },
  { method: 'POST', url: '/api', protocol: 'HTTP/1.1', headers: ['host', 'site.example', 'content-type', 'application/json', 'content-length', '27'], client: '192.0.2.1', body: Buffer.from('{"name":"x","tags":["a","b"]}'), id: 'warm-up' },
];

/**
 * V8 compiles a regular expression when it first runs: the first requests inspected would pay for
 * hundreds of them and could run past the inspection budget. They are run here, at load.
 */
function warmUp(rules: RuleSet): void {
  for (let round = 0; round < 3; round++) for (const request of warmUpRequests) inspect(rules, request, { paranoia: 4, threshold: 10_000, budgetMs: Infinity });
}

/** Random bytes for request ids, drawn 4 KiB at a time: a call to the system's generator per 512 requests, not per request. */
let idPool = Buffer.alloc(0);
let idAt = 0;

/** A request id: 16 random hex digits. */
function newRequestId(): string {
  if (idAt + 8 > idPool.length) {
    idPool = randomBytes(4096);
    idAt = 0;
  }
  idAt += 8;
  return idPool.toString('hex', idAt - 8, idAt);
}

/** The request's head fields as a flat name, value list (lower-case names). */
function headerList(exchange: StepExchange): string[] {
  const req = exchange.req;
  if (req instanceof ClientRequest) return req.head.fields;
  const out: string[] = [];
  for (const [name, value] of Object.entries(req.headers)) {
    if (name.startsWith(':') || value === undefined) continue;
    if (Array.isArray(value)) for (const one of value) out.push(name, one);
    else out.push(name, value);
  }
  return out;
}

export class Waf {
  readonly #rules: RuleSet;
  readonly #options: WafOptions;
  readonly #limits: ProxyLimits;

  constructor(rules: RuleSet, options: WafOptions, limits: ProxyLimits) {
    this.#rules = rules;
    this.#options = options;
    this.#limits = limits;
  }

  /** The step's work: synchronous for a request without a body, else once its first bytes are held. */
  check(exchange: StepExchange): StepResult | Promise<StepResult> {
    if (!requestHasBody(exchange.req)) return this.#verdict(exchange, Buffer.alloc(0));
    return holdBody(exchange.req, this.#limits, this.#options.bodyLimit).then(
      (held) => {
        const result = this.#verdict(exchange, held.prefix);
        if (result === undefined) exchange.body = held.body;
        else held.body.destroy();
        return result;
      },
      // The body broke its limits or the client left: forwarding would meet the same, answer it.
      (error: unknown) => bodyFailure(error),
    );
  }

  #verdict(exchange: StepExchange, body: Buffer): StepResult {
    const req = exchange.req;
    const requestId = newRequestId();
    const request: WafRequest = {
      method: exchange.method,
      url: req.url ?? '/',
      protocol: `HTTP/${req.httpVersionMajor === 2 ? '2.0' : req.httpVersion}`,
      headers: headerList(exchange),
      headerBlock: req instanceof ClientRequest ? req.head.block : undefined,
      client: exchange.client,
      body,
      id: requestId,
    };
    const verdict = inspect(this.#rules, request, this.#options);
    if (!verdict.denied) return undefined;
    const categories = [...new Set(verdict.matched.map(ruleCategory))];
    if (verdict.exhausted) categories.push('budget');
    const action = this.#options.mode === 'block' ? 'blocked' : 'logged';
    exchange.waf = { requestId, action, score: verdict.score, rules: verdict.matched.slice(0, maxLoggedRules), categories };
    exchange.answerHeaders['x-request-id'] = requestId;
    if (action === 'logged') return undefined;
    // x-request-id is among the answer headers: the pipeline adds them to its refusals too.
    return { status: 403, reason: 'waf', body: `Forbidden\nrequest id: ${requestId}\n` };
  }
}

/** A body that failed while held: its limit's answer (413, 408), or nothing to answer (the client left). */
function bodyFailure(error: unknown): Answer {
  const refused = error as { status?: number; reason?: string };
  if (typeof refused.status === 'number' && typeof refused.reason === 'string') return { status: refused.status, reason: refused.reason };
  return { status: 400, reason: 'client_closed' };
}
