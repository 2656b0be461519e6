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

/** The queue is full: the caller should retry shortly (503), nothing failed. */
export class RenderBusyError extends Error {
  constructor(readonly queued: number) {
    super(`The renderer is busy (${queued} renders waiting); retry shortly`);
    this.name = 'RenderBusyError';
  }
}

interface Job {
  id: number;
  task: RenderTask;
  resolve(output: RenderOutput): void;
  reject(error: Error): void;
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
 */
export class RenderPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private nextId = 1;
  private closed = false;
  private idleWaiters: (() => void)[] = [];
  /** Renders completed by this process's pool (tests and the debug headers read it). */
  renders = 0;

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
    /** How the threads draw (tests and the bench compare against new charts and Skia's SVG canvas). */
    private readonly drawing: Pick<RenderThreadData, 'keepCharts' | 'skiaSvg'> = {},
  ) {
    // Checked here so a missing font fails once, clearly, instead of every thread dying at start.
    fontFiles(fonts.dir);
    for (let i = 0; i < size; i++) this.slots.push(this.spawn());
  }

  static defaultSize(configured: number): number {
    return configured > 0 ? configured : Math.max(1, os.availableParallelism());
  }

  run(task: RenderTask): Promise<RenderOutput> {
    if (this.closed) return Promise.reject(new RenderError('The render pool is shut down'));
    if (this.queue.length >= this.maxQueue) return Promise.reject(new RenderBusyError(this.queue.length));
    return new Promise((resolve, reject) => {
      this.queue.push({ id: this.nextId++, task, resolve, reject });
      this.dispatch();
    });
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
      job.reject(
        reply.tooLarge
          ? new RenderTooLargeError(reply.error, reply.tooLarge.width, reply.tooLarge.height)
          : reply.invalidInput
            ? new RenderInputError(reply.error)
            : new RenderError(reply.error),
      );
    }
    this.dispatch();
  }

  /** Fails the thread's job, terminates the thread and starts a fresh one in its place. */
  private replace(slot: Slot, error: Error): void {
    const index = this.slots.indexOf(slot);
    if (index < 0) return;
    void this.retire(slot, error);
    if (this.closed) return;
    this.slots[index] = this.spawn();
    this.dispatch();
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
