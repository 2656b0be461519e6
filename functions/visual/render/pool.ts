import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { fontFiles } from './fonts';
import type { RenderOutput, RenderTask, WorkerReply } from './tasks';

export class RenderError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RenderError';
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
 * A fixed set of render threads, one job each at a time, with a FIFO queue in front. A job that
 * runs past the timeout fails and its thread is replaced, so one slow chart cannot hold a thread.
 */
export class RenderPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private nextId = 1;
  private closed = false;
  /** Renders completed by this process's pool (tests and the debug headers read it). */
  renders = 0;

  constructor(
    readonly size: number,
    private readonly timeoutMs: number,
    private readonly fontDir: string,
    private readonly script = path.join(__dirname, 'render-worker.js'),
  ) {
    // Checked here so a missing font fails once, clearly, instead of every thread dying at start.
    fontFiles(fontDir);
    for (let i = 0; i < size; i++) this.slots.push(this.spawn());
  }

  static defaultSize(configured: number): number {
    return configured > 0 ? configured : Math.max(1, os.availableParallelism());
  }

  run(task: RenderTask): Promise<RenderOutput> {
    if (this.closed) return Promise.reject(new RenderError('The render pool is shut down'));
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
    const slot: Slot = { worker: new Worker(this.script, { workerData: { fontDir: this.fontDir } }) };
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
      if (!job) return;
      slot.job = job;
      slot.worker.ref();
      slot.timer = setTimeout(() => this.replace(slot, new RenderError(`Rendering took longer than ${this.timeoutMs} ms`)), this.timeoutMs);
      slot.worker.postMessage({ id: job.id, task: job.task });
    }
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
      job.reject(new RenderError(reply.error));
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
