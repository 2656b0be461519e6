import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { fontFiles, type RenderFonts } from './fonts';
import type { RenderThreadData } from './run-task';
import type { RenderOutput, RenderTask, WorkerReply } from './tasks';

export class RenderError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RenderError';
  }
}

/** Chart.js refused the configuration: the caller's input is wrong, nothing failed. */
export class RenderInputError extends RenderError {
  constructor(message: string) {
    super(message);
    this.name = 'RenderInputError';
  }
}

/** The image would exceed MAX_PIXELS: the caller asked for too large an image (400), nothing was drawn. */
export class RenderTooLargeError extends RenderError {
  constructor(
    message: string,
    readonly width: number,
    readonly height: number,
  ) {
    super(message);
    this.name = 'RenderTooLargeError';
  }
}

/** An axis would have more ticks than the limit (400 naming the axis), refused before they were made. */
export class RenderTicksError extends RenderError {
  constructor(
    message: string,
    readonly axis: string,
  ) {
    super(message);
    this.name = 'RenderTicksError';
  }
}

/** An SVG passed MAX_SVG_BYTES (400): writing stopped there, nothing is stored. */
export class RenderSvgTooLargeError extends RenderError {
  constructor(message: string) {
    super(message);
    this.name = 'RenderSvgTooLargeError';
  }
}

/** The caller gave up on the render before a thread took it (another item of its request failed): not a failure of its own. */
export class RenderCancelledError extends Error {
  constructor() {
    super('The render was cancelled before it started');
    this.name = 'RenderCancelledError';
  }
}

/** The queue is full: the caller should retry shortly (503), nothing failed. */
export class RenderBusyError extends Error {
  constructor(readonly queued: number) {
    super(`The renderer is busy (${queued} renders waiting); retry shortly`);
    this.name = 'RenderBusyError';
  }
}

/**
 * A thread is replaced when one task grew its V8 heap by more than RECYCLE_GROWTH_BYTES to past
 * RECYCLE_HEAP_BYTES, or when its heap is past RECYCLE_MAX_HEAP_BYTES after any task. V8 keeps the
 * heap a large chart grew (a line of 20 x 5,000 points grows a new thread's heap from 33 to 89 MB
 * in its one task, most of it garbage, kept long after the answer), and a new thread costs about
 * 0.1 s of CPU (its start, fonts and Chart.js), less than such a chart, so memory returns to where
 * it was for a small share of it.
 *
 * Not the heap's size alone (64 MB until 29 Nov 2026): a thread drawing plain charts holds its
 * garbage until V8 collects it, so its committed heap moves between 33 and 116 MB for SVG (p50 84)
 * and up to 78 MB for PNG at 1x, a task growing it by at most 16 MB (the young generation doubling).
 * Replaced past 64 MB, a thread drawing SVG was replaced every 300 charts or so, and the new
 * threads' starts, cold code and lost kept charts doubled the pool's CPU per SVG (3.6 against 1.8
 * ms, 511 against 993 charts/s, 4 in flight on two threads).
 */
export const RECYCLE_HEAP_BYTES = 64 * 1024 * 1024;
/** What one task may grow a thread's heap by and leave it in place (plain charts: at most 16 MB). */
export const RECYCLE_GROWTH_BYTES = 32 * 1024 * 1024;
/** A thread past this after any task is replaced, however its heap got there (plain charts stay under 120 MB). */
export const RECYCLE_MAX_HEAP_BYTES = 192 * 1024 * 1024;

/** Whether a thread should be replaced after a task that left its heap at `after` bytes, from `before`. */
export function shouldRecycle(before: number | undefined, after: number | undefined): boolean {
  if (after === undefined) return false;
  if (after > RECYCLE_MAX_HEAP_BYTES) return true;
  return after > RECYCLE_HEAP_BYTES && after - (before ?? after) > RECYCLE_GROWTH_BYTES;
}

interface Job {
  id: number;
  task: RenderTask;
  resolve(output: RenderOutput): void;
  reject(error: Error): void;
  /** Its caller's signal, and what takes the job out of the queue when it aborts. */
  signal?: AbortSignal;
  onAbort?: () => void;
}

interface Slot {
  worker: Worker;
  job?: Job;
  timer?: NodeJS.Timeout;
}

/**
 * A fixed set of render threads, one job each at a time, with a bounded FIFO queue in front. A job
 * that runs past the timeout fails and its thread is replaced, so one slow chart cannot hold a
 * thread; a full queue refuses new work at once rather than letting latency grow without bound.
 *
 * A job given an AbortSignal (the items of one request share one, aborted when one of them fails)
 * leaves the queue the moment it aborts, rejected with RenderCancelledError. A job a thread has
 * already taken is left to finish, within the render timeout: terminating its thread would cost a
 * new thread (its start, fonts and Chart.js: about 0.1 s of CPU here, ten plain charts) and its kept charts,
 * so any client could make the pool restart threads at will by sending a failing item beside a
 * plain one; a running item costs no more than the same item sent alone, which the timeout bounds.
 */
export class RenderPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private nextId = 1;
  private closed = false;
  private idleWaiters: (() => void)[] = [];
  /** Renders completed by this process's pool (tests and the debug headers read it). */
  renders = 0;
  /** Jobs not rendered because their caller aborted: taken out of the queue, or refused before it (tests read it). */
  cancelled = 0;
  /** Threads replaced because a task grew their heap past the limits (shouldRecycle; tests and the bench read it). */
  recycled = 0;

  /** Jobs waiting or running. */
  get pending(): number {
    return this.queue.length + this.slots.filter((slot) => slot.job).length;
  }

  /** Resolves once nothing is waiting or running (health reporting, tests, graceful drains). */
  idle(): Promise<void> {
    if (this.pending === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  constructor(
    readonly size: number,
    private readonly timeoutMs: number,
    private readonly fonts: RenderFonts,
    private readonly maxQueue: number,
    private readonly script = path.join(__dirname, 'render-worker.js'),
    /** How the threads draw (tests and the bench compare against new charts and Skia's SVG canvas), and their tick limit. */
    private readonly drawing: Pick<RenderThreadData, 'keepCharts' | 'skiaSvg' | 'maxTicks'> = {},
  ) {
    // Checked here so a missing font fails once, clearly, instead of every thread dying at start.
    fontFiles(fonts.dir);
    for (let i = 0; i < size; i++) this.slots.push(this.spawn());
  }

  static defaultSize(configured: number): number {
    return configured > 0 ? configured : Math.max(1, os.availableParallelism());
  }

  /** Runs `task` on a thread; `signal` aborting takes it out of the queue if no thread has taken it yet (see the class). */
  run(task: RenderTask, signal?: AbortSignal): Promise<RenderOutput> {
    if (this.closed) return Promise.reject(new RenderError('The render pool is shut down'));
    if (signal?.aborted) {
      this.cancelled++;
      return Promise.reject(new RenderCancelledError());
    }
    if (this.queue.length >= this.maxQueue) return Promise.reject(new RenderBusyError(this.queue.length));
    return new Promise((resolve, reject) => {
      const job: Job = { id: this.nextId++, task, resolve, reject, signal };
      if (signal) {
        job.onAbort = () => this.cancel(job);
        signal.addEventListener('abort', job.onAbort, { once: true });
      }
      this.queue.push(job);
      this.dispatch();
    });
  }

  /** Takes an aborted job out of the queue; one a thread has taken goes on. */
  private cancel(job: Job): void {
    const index = this.queue.indexOf(job);
    if (index < 0) return;
    this.queue.splice(index, 1);
    this.cancelled++;
    job.reject(new RenderCancelledError());
    if (this.pending === 0) for (const resolve of this.idleWaiters.splice(0)) resolve();
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) job.reject(new RenderError('The render pool is shut down'));
    await Promise.all([...this.slots].map((slot) => this.retire(slot, new RenderError('The render pool is shut down'))));
  }

  private spawn(): Slot {
    const slot: Slot = { worker: new Worker(this.script, { workerData: { fonts: this.fonts, ...this.drawing } satisfies RenderThreadData }) };
    slot.worker.on('message', (reply: WorkerReply) => this.settle(slot, reply));
    slot.worker.on('error', (error) => this.replace(slot, new RenderError(`Render thread failed: ${error.message}`)));
    slot.worker.on('exit', (code) => {
      if (!this.closed && this.slots.includes(slot)) this.replace(slot, new RenderError(`Render thread exited with code ${code}`));
    });
    // Idle threads must not keep the process alive.
    slot.worker.unref();
    return slot;
  }

  private dispatch(): void {
    for (const slot of this.slots) {
      if (slot.job) continue;
      const job = this.queue.shift();
      if (!job) break;
      if (job.onAbort) job.signal!.removeEventListener('abort', job.onAbort);
      slot.job = job;
      slot.worker.ref();
      slot.timer = setTimeout(() => this.replace(slot, new RenderError(`Rendering took longer than ${this.timeoutMs} ms`)), this.timeoutMs);
      slot.worker.postMessage({ id: job.id, task: job.task });
    }
    if (this.pending === 0) for (const resolve of this.idleWaiters.splice(0)) resolve();
  }

  private settle(slot: Slot, reply: WorkerReply): void {
    const job = slot.job;
    if (!job || job.id !== reply.id) return;
    clearTimeout(slot.timer);
    slot.job = undefined;
    slot.worker.unref();
    if (reply.ok) {
      this.renders++;
      job.resolve({ bytes: reply.bytes, threadId: reply.threadId });
    } else {
      job.reject(failureOf(reply));
    }
    if (shouldRecycle(reply.heapBytesBefore, reply.heapBytes)) {
      // The thread is idle: replacing it fails nothing.
      this.recycled++;
      this.replace(slot, new RenderError('Render thread recycled'));
    } else if (reply.ok) this.dispatch();
    else this.dispatchAfterFailure();
  }

  /**
   * The next job is given out once the failure has reached its caller (a chain of promise
   * callbacks, all run before setImmediate), so that a request whose item failed withdraws its
   * queued items before the thread takes one of them.
   */
  private dispatchAfterFailure(): void {
    setImmediate(() => {
      if (!this.closed) this.dispatch();
    });
  }

  /** Fails the thread's job, terminates the thread and starts a fresh one in its place. */
  private replace(slot: Slot, error: Error): void {
    const index = this.slots.indexOf(slot);
    if (index < 0) return;
    void this.retire(slot, error);
    if (this.closed) return;
    this.slots[index] = this.spawn();
    this.dispatchAfterFailure();
  }

  private async retire(slot: Slot, error: Error): Promise<void> {
    clearTimeout(slot.timer);
    const job = slot.job;
    slot.job = undefined;
    job?.reject(error);
    const index = this.slots.indexOf(slot);
    if (index >= 0 && this.closed) this.slots.splice(index, 1);
    await slot.worker.terminate().catch(() => undefined);
  }
}

/** The error a thread's failed reply stands for. */
function failureOf(reply: Extract<WorkerReply, { ok: false }>): RenderError {
  if (reply.tooLarge) return new RenderTooLargeError(reply.error, reply.tooLarge.width, reply.tooLarge.height);
  if (reply.tooManyTicks) return new RenderTicksError(reply.error, reply.tooManyTicks.axis);
  if (reply.svgTooLarge) return new RenderSvgTooLargeError(reply.error);
  return reply.invalidInput ? new RenderInputError(reply.error) : new RenderError(reply.error);
}
