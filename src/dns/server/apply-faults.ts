// A fault for the tests, never for production: EDGEPLANE_TEST_FAIL_APPLY makes one DNS thread fail
// its next attempts to apply changes of one zone, so that a test can watch the threads converge
// (test/e2e/dns-convergence.test.ts), or makes a worker thread end with an uncaught exception, or
// loop for ever, when it applies a change of that zone, so that a test can watch it replaced
// (thread-slot.ts). Only the process's environment sets it: there is no flag, and nothing an API
// caller sends reaches it. Unset, nothing is injected.

export interface ApplyFault {
  /** The DNS thread: 0 is the main thread, 1 and up the worker threads. */
  thread: number;
  zone: string;
  /** How many attempts fail; 'exit': the thread ends at the first, 'hang': it never returns from it (worker threads only). */
  times: number | 'exit' | 'hang';
}

export const applyFaultsEnv = 'EDGEPLANE_TEST_FAIL_APPLY';

/** `thread:zone:times`, `thread:zone:exit` or `thread:zone:hang`, several separated by commas; '' for none. */
export function parseApplyFaults(value: string): ApplyFault[] {
  return value
    .split(',')
    .filter((entry) => entry.trim() !== '')
    .map((entry) => {
      const match = /^(\d{1,2}):([a-z0-9.-]+):(\d{1,3}|exit|hang)$/.exec(entry.trim().toLowerCase());
      if (match === null) throw new Error(`"${entry}" is not thread:zone:times, thread:zone:exit or thread:zone:hang`);
      const thread = Number(match[1]);
      const times = match[3] === 'exit' || match[3] === 'hang' ? match[3] : Number(match[3]);
      // The main thread ending is the process ending: nothing is left to replace it.
      if (typeof times === 'string' && thread === 0) throw new Error(`"${entry}": only a worker thread (1 and up) can be made to ${times}`);
      return { thread, zone: match[2] ?? '', times };
    });
}

/** The faults left for one thread: `attempt(zone)` throws while that zone has failures to give. */
export class ApplyFaults {
  readonly #left = new Map<string, number | 'exit' | 'hang'>();

  constructor(faults: readonly ApplyFault[], thread: number) {
    for (const fault of faults) if (fault.thread === thread) this.#left.set(fault.zone, fault.times);
  }

  attempt(zone: string): void {
    const left = this.#left.get(zone) ?? 0;
    if (left === 'hang') for (;;);
    if (left === 'exit') {
      // Thrown outside any promise: uncaught, as a defect's exception would be.
      setImmediate(() => {
        throw new Error(`${applyFaultsEnv}: injected end of this thread at a change of ${zone}`);
      });
      return;
    }
    if (left === 0) return;
    this.#left.set(zone, left - 1);
    throw new Error(`${applyFaultsEnv}: injected failure to apply a change of ${zone}`);
  }
}
