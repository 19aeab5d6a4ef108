// An inspection's budget (EDGEPLANE_WAF_BUDGET) bounds the CPU a crafted request can make the rules
// spend. The engine reads the wall clock for it, which is cheap, every 8 rules or values run. But a
// thread the operating system does not run (a busy machine) sees wall time pass while it spends
// nothing, and a benign request would be refused for a budget it never used: a test suite on a busy
// machine once saw its first request refused so. The thread's own CPU time is a system call (7 µs on
// a Firecracker VM, more than a benign request's rules), so it is read only once the wall clock says
// the budget is spent, and compared with a sample of it a timer takes every 50 ms: the CPU the thread
// spent since that sample, taken before the inspection began, is at least the inspection's. Below
// the budget, the deadline moves on by what is left of it; otherwise the budget is spent. A busy
// thread's sample is older (its timer waits for the work), which counts more than the inspection's
// CPU, never less: the bound holds.

/** The calling thread's CPU time (user and system), ms. */
export const threadCpuMs = (): number => {
  const { user, system } = process.threadCpuUsage();
  return (user + system) / 1000;
};

/** How often the sample is taken, ms. */
const sampleEveryMs = 50;

let sampled: number | undefined;

/** The thread's CPU time as last sampled (a timer started at the first call keeps it), ms. */
function lastSample(): number {
  if (sampled === undefined) {
    sampled = threadCpuMs();
    setInterval(() => (sampled = threadCpuMs()), sampleEveryMs).unref();
  }
  return sampled;
}

export class Budget {
  /** Past it (performance.now()), ask spent(). */
  deadline: number;
  readonly #ms: number;
  /** The thread's CPU time at some moment before the inspection began, ms. */
  readonly #cpuBefore: number;

  /** `started`: performance.now() when the inspection began. */
  constructor(started: number, ms: number) {
    this.deadline = started + ms;
    this.#ms = ms;
    this.#cpuBefore = Number.isFinite(ms) ? lastSample() : 0;
  }

  /** True once the inspection has spent the budget; read the wall clock first, the thread's CPU time only past the deadline. */
  over(): boolean {
    const now = performance.now();
    return now > this.deadline && this.#spent(now);
  }

  #spent(now: number): boolean {
    const used = threadCpuMs() - this.#cpuBefore;
    if (used >= this.#ms) return true;
    this.deadline = now + (this.#ms - used);
    return false;
  }
}
