// Gives back the heap a thread grew while starting. Loading the application (and, in a DNS thread,
// its zones) keeps many objects alive across young collections, so V8 grows the young generation to
// its limit (64 MiB on the main thread, 16 MiB in a worker; 128 MiB after a large zone) and an idle
// thread never shrinks it again: that was over a third of an empty process's resident set. A
// collection that reduces the footprint (the kind V8 runs under memory pressure) shrinks the young
// generation and compacts the old one; V8 grows the young generation again if traffic needs it.
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

type Collect = (options: { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void;

/** V8's `gc`, got without exposing it to the application: it is only installed into contexts made
 *  while the flag is on, and the flag is turned off again at once (worker threads started later would
 *  otherwise find a global `gc`). */
function collector(): Collect {
  setFlagsFromString('--expose-gc');
  try {
    return runInNewContext('gc') as Collect;
  } finally {
    setFlagsFromString('--no-expose-gc');
  }
}

const youngSize = () => getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')?.space_size ?? 0;

/** Rounds at most: V8 may also shrink the young generation by halves, 128 MiB down to its floor. */
const maxRounds = 8;

/**
 * Call once the thread serves. Each round is a full collection that pauses the thread (0.1–0.5 s for
 * the main thread on a busy two-core machine); the thread gets on with its work between rounds, which
 * go on until the young generation shrinks no more (in practice the first takes it to its floor and
 * the second finds nothing left to give).
 */
export async function releaseStartupHeap(): Promise<void> {
  const collect = collector();
  for (let i = 0, size = youngSize(); i < maxRounds; i++) {
    if (i > 0) await new Promise((resolve) => setImmediate(resolve));
    collect({ type: 'major', execution: 'sync', flavor: 'last-resort' });
    const after = youngSize();
    if (after >= size) return;
    size = after;
  }
}
