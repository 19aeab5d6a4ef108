// One of a role's worker threads (DNS, proxy), kept serving: a thread that ends on its own (an
// uncaught exception, running out of heap), or that stops answering (a loop that never ends: it is
// pinged, and ended when a ping goes unanswered too long), is replaced by a new one, after a wait
// that doubles while replacements keep ending soon after they start (1 s, 2 s, ... up to a minute),
// so that a thread that cannot run costs a start a minute, not a busy loop. The process serves on
// its other threads meanwhile: their sockets share the port, and the kernel stops handing the ended
// thread's share of the traffic to a socket that is gone.
import type { FastifyBaseLogger } from 'fastify';

/** What a slot needs of a thread: to be stopped, asked whether it still answers, and ended when it does not. */
export interface SlotThread {
  stop(): Promise<void>;
  /** Resolves once the thread's event loop answered. */
  ping(): Promise<unknown>;
  /** Ends the thread however busy it is; its end counts as its own (it is replaced). */
  kill(): Promise<void>;
}

export interface Heartbeat {
  /** A ping this often, when none is unanswered. */
  everyMs: number;
  /** A ping unanswered this long ends the thread. */
  timeoutMs: number;
}

/**
 * A thread answers a ping between two pieces of its work: one that holds its event loop for 30 s
 * has stopped serving queries and requests too.
 */
export const defaultHeartbeat: Heartbeat = { everyMs: 5000, timeoutMs: 30_000 };

/**
 * Starts a thread; `onExit` is called if it ends by itself once started (not when stopped).
 * `replacement`: it takes the place of one that ended (not the slot's first).
 */
export type ThreadStarter<T> = (onExit: (code: number) => void, replacement: boolean) => Promise<T>;

export interface Backoff {
  firstMs: number;
  maxMs: number;
  /** A thread that ran this long before it ended is replaced after `firstMs` again. */
  steadyMs: number;
}

export const defaultBackoff: Backoff = { firstMs: 1000, maxMs: 60_000, steadyMs: 60_000 };

export interface SlotOptions<T> {
  /** For the log: `DNS worker 1`. */
  name: string;
  start: ThreadStarter<T>;
  logger: FastifyBaseLogger;
  /**
   * A replacement started: the role brings it up to date (what it missed while it started), and
   * may `join` it to the threads it hands changes to at a moment of its choosing (inside its own
   * queue of changes, so that none passes it by); it is joined when this resolves in any case.
   */
  replaced: (thread: T, join: () => void) => Promise<void>;
  /** Counts every replacement started (a metric). */
  onRestart: () => void;
  backoff?: Backoff;
  heartbeat?: Heartbeat;
}

export class ThreadSlot<T extends SlotThread> {
  readonly #options: SlotOptions<T>;
  readonly #backoff: Backoff;
  #current: T | undefined;
  #startedAt = 0;
  #delayMs: number;
  #timer: NodeJS.Timeout | undefined;
  /** A replacement starting: stop() waits for it, and stops it. */
  #replacing: Promise<void> | undefined;
  #stopped = false;

  constructor(options: SlotOptions<T>) {
    this.#options = options;
    this.#backoff = options.backoff ?? defaultBackoff;
    this.#delayMs = this.#backoff.firstMs;
  }

  /** The thread serving in this slot; undefined while a replacement waits or starts. */
  get current(): T | undefined {
    return this.#current;
  }

  /** Starts the slot's first thread: a thread that cannot start at all fails the role's start. */
  async begin(): Promise<void> {
    this.#current = (await this.#start(false)).thread;
  }

  /** A new thread, watched from now on, and whether it has ended since (a replacement may end before it serves). */
  async #start(replacement: boolean): Promise<{ thread: T; ended: () => boolean }> {
    this.#startedAt = Date.now();
    let ended = false;
    const thread = await this.#options.start((code) => {
      ended = true;
      this.#ended(code);
    }, replacement);
    this.#watch(thread, () => ended);
    return { thread, ended: () => ended };
  }

  /** Pings the thread until it ends or the slot stops; a ping unanswered for the heartbeat's timeout ends it. */
  #watch(thread: T, ended: () => boolean): void {
    const { everyMs, timeoutMs } = this.#options.heartbeat ?? defaultHeartbeat;
    let sentAt: number | undefined;
    const timer = setInterval(() => {
      if (ended() || this.#stopped) {
        clearInterval(timer);
        return;
      }
      if (sentAt === undefined) {
        const sent = Date.now();
        sentAt = sent;
        // A thread gone answers at once (failed): only its end stops the watch.
        const answered = () => {
          if (sentAt === sent) sentAt = undefined;
        };
        thread.ping().then(answered, answered);
        return;
      }
      if (Date.now() - sentAt < timeoutMs) return;
      clearInterval(timer);
      this.#options.logger.error({ thread: this.#options.name, timeout_ms: timeoutMs }, `${this.#options.name} did not answer for ${String(timeoutMs / 1000)} s: ending it`);
      void thread.kill();
    }, everyMs);
    timer.unref();
  }

  #ended(code: number): void {
    this.#current = undefined;
    if (this.#stopped) return;
    const ranMs = Date.now() - this.#startedAt;
    if (ranMs >= this.#backoff.steadyMs) this.#delayMs = this.#backoff.firstMs;
    const delayMs = this.#nextDelay();
    this.#options.logger.error({ thread: this.#options.name, code, ran_ms: ranMs, restart_in_ms: delayMs }, `${this.#options.name} ended; a new one starts in ${String(delayMs / 1000)} s`);
    this.#schedule(delayMs);
  }

  /** The wait before the next start, doubling the one after it (up to the most). */
  #nextDelay(): number {
    const delayMs = this.#delayMs;
    this.#delayMs = Math.min(delayMs * 2, this.#backoff.maxMs);
    return delayMs;
  }

  #schedule(delayMs: number): void {
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#replacing = this.#replace()
        .catch((e: unknown) => this.#options.logger.error({ err: e, thread: this.#options.name }, `${this.#options.name}: stopping a replacement failed`))
        .finally(() => (this.#replacing = undefined));
    }, delayMs);
    this.#timer.unref();
  }

  async #replace(): Promise<void> {
    if (this.#stopped) return;
    this.#options.onRestart();
    let started: { thread: T; ended: () => boolean };
    try {
      started = await this.#start(true);
    } catch (e) {
      // It did not start: the next try waits longer.
      const delayMs = this.#nextDelay();
      this.#options.logger.error({ err: e, thread: this.#options.name, restart_in_ms: delayMs }, `${this.#options.name} did not start; trying again in ${String(delayMs / 1000)} s`);
      if (!this.#isStopped()) this.#schedule(delayMs);
      return;
    }
    const { thread, ended } = started;
    if (this.#isStopped()) {
      await thread.stop();
      return;
    }
    // Not once stopped, nor once ended (its own end scheduled the next one).
    const state = { joined: false };
    const join = () => {
      if (state.joined || this.#stopped || ended()) return;
      state.joined = true;
      this.#current = thread;
    };
    try {
      await this.#options.replaced(thread, join);
    } catch (e) {
      this.#options.logger.warn({ err: e, thread: this.#options.name }, `${this.#options.name} restarted, but bringing it up to date failed; it catches up by itself`);
    }
    // Stopped meanwhile: stop() stopped it if it had joined.
    if (this.#isStopped()) {
      if (!state.joined) await thread.stop();
      return;
    }
    join();
    if (state.joined) this.#options.logger.info({ thread: this.#options.name }, `${this.#options.name} restarted and serving`);
  }

  /** Read through a call: stop() may have run during any await. */
  #isStopped(): boolean {
    return this.#stopped;
  }

  /** Stops the thread and any replacement to come. */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    await this.#replacing;
    const thread = this.#current;
    this.#current = undefined;
    await thread?.stop();
  }
}

/** The threads serving now, in slot order (those restarting left out). */
export const serving = <T extends SlotThread>(slots: readonly ThreadSlot<T>[]): T[] => slots.flatMap((slot) => (slot.current === undefined ? [] : [slot.current]));
