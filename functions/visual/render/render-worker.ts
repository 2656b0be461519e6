/** A render thread of the pool: runs each task it is sent (run-task.ts) and answers with the bytes or the error. */
import { getHeapStatistics } from 'node:v8';
import { parentPort, threadId, workerData } from 'node:worker_threads';
import { ChartConfigError, ImageTooLargeError, renderTasks, type RenderThreadData } from './run-task';
import { SvgTooLargeError, TooManyTicksError, type WorkerReply, type WorkerRequest } from './tasks';

const run = renderTasks(workerData as RenderThreadData);

/** Never rejects: every failure of a task is its reply. */
async function answer({ id, task }: WorkerRequest): Promise<void> {
  let reply: WorkerReply;
  const heapBytesBefore = getHeapStatistics().total_heap_size;
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
      ...(error instanceof TooManyTicksError ? { tooManyTicks: { axis: error.axis } } : {}),
      ...(error instanceof SvgTooLargeError ? { svgTooLarge: true } : {}),
    };
  }
  parentPort!.postMessage({ ...reply, heapBytesBefore, heapBytes: getHeapStatistics().total_heap_size });
}

parentPort!.on('message', (request: WorkerRequest) => void answer(request));
