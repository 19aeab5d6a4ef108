// A role's worker thread that ends by itself is replaced (thread-slot.ts): real worker threads,
// ended by an uncaught exception; the replacement waits longer while replacements keep ending,
// never comes once the slot is stopped, and joins when the role says it is up to date.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Worker } from 'node:worker_threads';
import pino from 'pino';
import { ThreadSlot, serving, type Backoff, type ThreadStarter } from '../src/thread-slot.ts';
import { waitFor } from './support/wait.ts';

const logger = pino({ level: 'silent' });

interface TestThread {
  /** Ends the thread with an uncaught exception. */
  end(): void;
  /** Makes the thread loop for ever. */
  hang(): void;
  stop(): Promise<void>;
  ping(): Promise<unknown>;
  kill(): Promise<void>;
  stopped: boolean;
}

/** Starts real worker threads, noting when each started; the next `failing.starts` fail to start. */
function starter(starts: number[], failing = { starts: 0 }): ThreadStarter<TestThread> {
  return (onExit) =>
    new Promise((resolve, reject) => {
      starts.push(Date.now());
      if (failing.starts > 0) {
        failing.starts--;
        reject(new Error('did not start'));
        return;
      }
      const worker = new Worker(new URL('./support/ending-worker.ts', import.meta.url));
      let ready = false;
      const pongs: (() => void)[] = [];
      const thread: TestThread = {
        end: () => worker.postMessage('end'),
        hang: () => worker.postMessage('hang'),
        stop: async () => {
          thread.stopped = true;
          await worker.terminate();
        },
        ping: () =>
          new Promise<void>((answered) => {
            pongs.push(answered);
            worker.postMessage('ping');
          }),
        kill: async () => {
          await worker.terminate();
        },
        stopped: false,
      };
      worker.on('message', (message) => {
        if (message === 'pong') {
          pongs.shift()?.();
          return;
        }
        ready = true;
        resolve(thread);
      });
      worker.on('error', () => undefined);
      worker.on('exit', (code) => {
        if (!ready) reject(new Error(`exited (${String(code)})`));
        else if (!thread.stopped) onExit(code);
      });
    });
}

const quick: Backoff = { firstMs: 100, maxMs: 400, steadyMs: 60_000 };

test('a thread that ends by itself is replaced after the wait; the role brings the new one up to date before it serves', async () => {
  const starts: number[] = [];
  let restarts = 0;
  const brought: TestThread[] = [];
  const slot: ThreadSlot<TestThread> = new ThreadSlot<TestThread>({
    name: 'test worker',
    start: starter(starts),
    logger,
    replaced: async (thread: TestThread): Promise<void> => {
      // Not serving yet while the role brings it up to date.
      assert.equal(slot.current, undefined);
      brought.push(thread);
    },
    onRestart: () => restarts++,
    backoff: quick,
  });
  await slot.begin();
  const first = slot.current;
  assert.ok(first !== undefined);
  assert.deepEqual(serving([slot]), [first]);
  first.end();
  await waitFor(() => slot.current === undefined, 5000);
  assert.deepEqual(serving([slot]), []);
  await waitFor(() => slot.current !== undefined, 5000);
  assert.notEqual(slot.current, first);
  assert.deepEqual(brought, [slot.current]);
  assert.equal(restarts, 1);
  assert.equal(starts.length, 2);
  assert.ok((starts[1] ?? 0) - (starts[0] ?? 0) >= quick.firstMs, 'replaced only after the wait');
  await slot.stop();
  assert.equal(slot.current, undefined);
});

test('replacements that keep ending wait longer each time, up to the most', async () => {
  const starts: number[] = [];
  const ends: number[] = [];
  const slot = new ThreadSlot<TestThread>({ name: 'test worker', start: starter(starts), logger, replaced: async () => undefined, onRestart: () => undefined, backoff: quick });
  await slot.begin();
  for (let i = 0; i < 4; i++) {
    const thread = slot.current;
    assert.ok(thread !== undefined);
    ends.push(Date.now());
    thread.end();
    await waitFor(() => slot.current !== undefined && slot.current !== thread, 5000);
  }
  await slot.stop();
  // The waits: 100, 200, 400, 400 ms (a start takes some time of its own on top).
  const waits = ends.map((at, i) => (starts[i + 1] ?? 0) - at);
  for (const [i, least] of [100, 200, 400, 400].entries()) assert.ok((waits[i] ?? 0) >= least - 20, `wait ${String(i)}: ${String(waits[i])} ms, at least ${String(least)}`);
  assert.ok((waits[3] ?? 0) < 1500, `the wait stops growing at its most: ${String(waits[3])} ms`);
});

test('a replacement that fails to start is tried again, waiting longer', async () => {
  const starts: number[] = [];
  const failing = { starts: 0 };
  let restarts = 0;
  const slot = new ThreadSlot<TestThread>({ name: 'test worker', start: starter(starts, failing), logger, replaced: async () => undefined, onRestart: () => restarts++, backoff: quick });
  await slot.begin();
  const first = slot.current;
  // The next two starts fail: tried after 100, 200, then 400 ms.
  failing.starts = 2;
  first?.end();
  await waitFor(() => slot.current !== undefined && slot.current !== first, 5000);
  await slot.stop();
  assert.equal(restarts, 3);
  assert.equal(starts.length, 4);
  const gaps = [(starts[2] ?? 0) - (starts[1] ?? 0), (starts[3] ?? 0) - (starts[2] ?? 0)];
  assert.ok((gaps[0] ?? 0) >= 180 && (gaps[1] ?? 0) >= 380, `waits between failed starts: ${gaps.join(', ')} ms`);
});

test('stopped, a slot starts no replacement: not while waiting, nor one already starting', async () => {
  const starts: number[] = [];
  const waiting = new ThreadSlot<TestThread>({ name: 'test worker', start: starter(starts), logger, replaced: async () => undefined, onRestart: () => undefined, backoff: { firstMs: 300, maxMs: 300, steadyMs: 60_000 } });
  await waiting.begin();
  waiting.current?.end();
  await waitFor(() => waiting.current === undefined, 5000);
  await waiting.stop();
  await new Promise((resolve) => setTimeout(resolve, 500));
  assert.equal(starts.length, 1, 'no replacement after stop()');

  // Stopped while the replacement is brought up to date: that thread is stopped, never serves.
  const more: number[] = [];
  let release: () => void = () => undefined;
  const held = new Promise<void>((resolve) => (release = resolve));
  let replacement: TestThread | undefined;
  const starting = new ThreadSlot<TestThread>({
    name: 'test worker',
    start: starter(more),
    logger,
    replaced: async (thread) => {
      replacement = thread;
      await held;
    },
    onRestart: () => undefined,
    backoff: quick,
  });
  await starting.begin();
  starting.current?.end();
  await waitFor(() => replacement !== undefined, 5000);
  const stopping = starting.stop();
  release();
  await stopping;
  assert.equal(starting.current, undefined);
  assert.equal(replacement?.stopped, true);
});

test('a thread stopped through its slot is not replaced', async () => {
  const starts: number[] = [];
  let restarts = 0;
  const slot = new ThreadSlot<TestThread>({ name: 'test worker', start: starter(starts), logger, replaced: async () => undefined, onRestart: () => restarts++, backoff: quick });
  await slot.begin();
  await slot.stop();
  await new Promise((resolve) => setTimeout(resolve, 300));
  assert.equal(restarts, 0);
  assert.equal(starts.length, 1);
});

test('a thread that stops answering its pings is ended and replaced; one that answers is left alone', async () => {
  const starts: number[] = [];
  let restarts = 0;
  const heartbeat = { everyMs: 50, timeoutMs: 400 };
  const slot = new ThreadSlot<TestThread>({ name: 'test worker', start: starter(starts), logger, replaced: async () => undefined, onRestart: () => restarts++, backoff: quick, heartbeat });
  await slot.begin();
  // Answering, it stays however long it runs.
  await new Promise((resolve) => setTimeout(resolve, 800));
  assert.equal(restarts, 0);
  const first = slot.current;
  first?.hang();
  await waitFor(() => slot.current !== undefined && slot.current !== first, 5000);
  assert.equal(restarts, 1);
  assert.ok((starts[1] ?? 0) - (starts[0] ?? 0) >= 800 + heartbeat.timeoutMs, 'ended only once a ping went unanswered that long');
  await slot.stop();
});
