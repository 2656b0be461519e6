/** The render thread's task runner as a piscina worker (bench/visual/pools.ts compares the two pools on the same work). */
import { workerData } from 'node:worker_threads';
import { renderTasks, type RenderThreadData } from '../../functions/visual/render/run-task';
import type { RenderTask } from '../../functions/visual/render/tasks';

const run = renderTasks(workerData as RenderThreadData);

export default async function render(task: RenderTask): Promise<Uint8Array> {
  const bytes = await run(task);
  return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
