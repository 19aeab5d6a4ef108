// SQLite in WAL mode with synchronous = NORMAL (sqlite.ts) syncs the WAL to disk only when it
// checkpoints (each time the WAL reaches 1,000 pages, SQLite's default), inside the COMMIT that
// crosses that mark. On bench/api's machine that sync, of the 4 MB written since the last one, took
// 4 ms of the checkpoint's 5.5, every 50 to 90 RRset batches, holding the main thread and with it
// every write waiting to commit. Syncing the WAL from libuv's thread pool while it grows leaves
// that sync little to do. Syncing earlier than SQLite would is always safe: it only makes
// committed frames durable sooner.
import fs from 'node:fs';

/** One sync at a time, and at most one started this often: bounds the thread pool's jobs. */
const minIntervalMs = 10;

/** Keeps a store's WAL synced behind its commits. */
export class WalSyncAhead {
  readonly #path: string;
  #fd: number | undefined;
  #syncing = false;
  #closed = false;
  #last = -Infinity;

  /** `path`: the WAL file (the database's path with `-wal`). */
  constructor(path: string) {
    this.#path = path;
  }

  /** Call after a commit: starts a sync in the background unless one is under way or started lately. */
  committed(): void {
    const now = performance.now();
    if (this.#syncing || this.#closed || now - this.#last < minIntervalMs) return;
    this.#last = now;
    this.#fd ??= openWal(this.#path);
    if (this.#fd === undefined) return;
    this.#syncing = true;
    fs.fdatasync(this.#fd, () => {
      this.#syncing = false;
      if (this.#closed) this.#release();
    });
  }

  /** Call once the database is closed; the file is let go once a sync under way ends. */
  close(): void {
    this.#closed = true;
    if (!this.#syncing) this.#release();
  }

  #release(): void {
    if (this.#fd !== undefined) fs.closeSync(this.#fd);
    this.#fd = undefined;
  }
}

/** The WAL, opened to sync it; undefined where there is none (yet). SQLite holds no locks on it, so this descriptor cannot drop any. */
function openWal(path: string): number | undefined {
  try {
    return fs.openSync(path, 'r');
  } catch {
    return undefined;
  }
}
