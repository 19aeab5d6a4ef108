// The C heap that Node, V8 and SQLite allocate from (glibc's malloc), tuned through the native addon
// native/c_heap.c (built with the UDP addon by `npm ci`; without it, or with another C library, both
// calls do nothing). Each thread that meets contention in malloc gets an arena of its own, up to 8
// per core (16 on two cores, for a process of 5 JavaScript threads and their helper threads), and
// an arena gives memory back to the kernel only from its top: what threads freed after starting
// stays resident. See docs/dns-server.md, "Memory".
import { createRequire } from 'node:module';

interface CHeapAddon {
  limitArenas(count: number): boolean;
  trim(): boolean;
}

function load(): CHeapAddon | undefined {
  if (process.platform !== 'linux') return undefined;
  try {
    return createRequire(import.meta.url)('../build/Release/c_heap.node') as CHeapAddon;
  } catch {
    return undefined;
  }
}

const addon = load();

/** Arenas the process's threads share from now on: one per core, enough that threads rarely wait on
 *  each other in malloc (the JavaScript heaps, where nearly all allocation happens, are not malloc's). */
export function limitArenas(count: number): void {
  addon?.limitArenas(count);
}

/** Gives the kernel back every whole free page in the C heap: call once start-up's garbage is freed. */
export function trimCHeap(): void {
  addon?.trim();
}
