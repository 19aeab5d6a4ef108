// A proxy thread's view of every resource: host name → the compiled resource that holds it. Each
// policy is compiled once when it arrives (its steps, its origins, its certificate); a request only
// looks its host up.
import type { SecureContext } from 'node:tls';
import type { Step } from './exchange.ts';
import { AttackWatch, defaultAttackOptions } from './mitigation/attack-watch.ts';
import { compileOrigins, type OriginSet } from './origins/origin-set.ts';
import type { ResourcePolicy } from './policy.ts';
import { compiledSteps } from './steps/policy-steps.ts';
import type { AttackState } from './proxy-metrics.ts';
import type { ThreadDeps } from './thread-deps.ts';
import { secureContextOf } from './tls/secure-contexts.ts';

/** What a request goes through before its origin. */
export interface Steps {
  /** HSTS, whitelist, blacklist, geo, methods, challenges and rate rules, in that order. */
  guards: Step[];
  /** The redirects to HTTPS and from www. */
  rewrites: Step[];
}

export interface ServedResource {
  policy: ResourcePolicy;
  steps: Steps;
  /** While under attack: the same with the bot challenge on (new clients must pass it). */
  stepsUnderAttack: Steps;
  origins: OriginSet;
  /** Undefined: no certificate, so no HTTPS for its names. */
  secureContext: SecureContext | undefined;
  /** Whether it is under attack, and whom to shed; kept across changes of the resource. */
  attack: AttackWatch;
}

export class HostTable {
  readonly #deps: ThreadDeps;
  readonly #byHost = new Map<string, ServedResource>();
  readonly #byId = new Map<number, ServedResource>();

  constructor(deps: ThreadDeps) {
    this.#deps = deps;
  }

  get size(): number {
    return this.#byId.size;
  }

  find(host: string): ServedResource | undefined {
    return this.#byHost.get(host);
  }

  /**
   * Puts these policies in place of the resources of the same ids and drops the `gone` ones; with
   * `full`, every resource not among the policies goes too. A policy that fails to compile leaves
   * its resource unserved rather than the thread without its other resources.
   */
  async apply(policies: ResourcePolicy[], gone: number[], full: boolean): Promise<void> {
    const keep = new Set(policies.map((p) => p.id));
    const leaving = full ? [...this.#byId.keys()].filter((id) => !keep.has(id)) : gone;
    const replaced: ServedResource[] = [];
    const watches = new Map<number, AttackWatch>();
    for (const id of [...leaving, ...keep]) {
      const old = this.#byId.get(id);
      if (old === undefined) continue;
      this.#unlink(old);
      replaced.push(old);
      watches.set(id, old.attack);
    }
    // Without it, those resources fail to compile below (never served unprotected).
    if (policies.some((p) => p.settings.is_waf_enabled)) await this.#deps.loadWaf().catch((e: unknown) => this.#deps.logger.error({ err: e }, 'the WAF\'s code could not be loaded'));
    for (const policy of policies) {
      try {
        const served = this.#compile(policy, watches.get(policy.id));
        this.#byId.set(policy.id, served);
        for (const host of policy.hosts) this.#byHost.set(host, served);
      } catch (e) {
        this.#deps.logger.error({ err: e, resource: policy.id }, 'a resource could not be compiled: its hosts are not served');
      }
    }
    // Requests already on their way to an old origin set finish there; the pools close when idle.
    await Promise.all(replaced.map((r) => r.origins.close()));
  }

  async close(): Promise<void> {
    const all = [...this.#byId.values()];
    this.#byId.clear();
    this.#byHost.clear();
    await Promise.all(all.map((r) => r.origins.close()));
  }

  #unlink(resource: ServedResource): void {
    this.#byId.delete(resource.policy.id);
    for (const host of resource.policy.hosts) if (this.#byHost.get(host) === resource) this.#byHost.delete(host);
  }

  /** The attack states of every resource, for the metrics. */
  *attackStates(): Iterable<AttackState> {
    const now = performance.now();
    for (const [resource, { attack }] of this.#byId) {
      attack.settle(now);
      yield { resource, underAttack: attack.underAttack, threshold: attack.threshold };
    }
  }

  #compile(policy: ResourcePolicy, attack: AttackWatch | undefined): ServedResource {
    const { guards, rewrites, guardsUnderAttack } = compiledSteps(policy, this.#deps);
    const steps = { guards, rewrites };
    const stepsUnderAttack = { guards: guardsUnderAttack, rewrites };
    return { policy, steps, stepsUnderAttack, origins: compileOrigins(policy, this.#deps), secureContext: secureContextOf(policy), attack: attack ?? this.#watch(policy.id) };
  }

  /** A resource's attack watch, logging when mitigation goes on and off. */
  #watch(resource: number): AttackWatch {
    const { logger, settings } = this.#deps;
    return new AttackWatch({ ...defaultAttackOptions, ...settings.attack }, (state) => {
      if (state === 'under_attack') logger.warn({ resource }, `resource ${String(resource)} is under attack: mitigation on`);
      else logger.info({ resource }, `resource ${String(resource)} is calm again: mitigation off`);
    });
  }
}
