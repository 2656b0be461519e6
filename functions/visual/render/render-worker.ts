/** A render thread of the pool: runs each task it is sent (run-task.ts) and answers with the bytes or the error. */
import { parentPort, threadId, workerData } from 'node:worker_threads';
import { ChartConfigError, ImageTooLargeError, renderTasks, type RenderThreadData } from './run-task';
import type { WorkerReply, WorkerRequest } from './tasks';

const run = renderTasks(workerData as RenderThreadData);

/** Never rejects: every failure of a task is its reply. */
async function answer({ id, task }: WorkerRequest): Promise<void> {
  let reply: WorkerReply;
  try {
    const bytes = await run(task);
    reply = { id, ok: true, bytes: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), threadId };
  } catch (error) {
    reply = {
      id,
      ok: false,
      error: (error as Error)?.message ?? String(error),
      invalidInput: error instanceof ChartConfigError,
      ...(error instanceof ImageTooLargeError ? { tooLarge: { width: error.width, height: error.height } } : {}),
    };
  }
  parentPort!.postMessage(reply);
}

parentPort!.on('message', (request: WorkerRequest) => void answer(request));
