import type { LiveUser } from '../../../shared/auth/live-session';
import { json } from '../../../shared/http/handler';
import { op } from '../context';
import { loggerSelfTest, sampleExecution } from '../workflow/diagnostics';

/** POST orchestrator/test-workflow-logger (admin): logs a start and a completion for every stage, then reports where they went. */
export const testWorkflowLogger = op<LiveUser>('Logs every stage of a sample workflow, then reports where each line and row went', async ({ ctx }) =>
  json(200, await loggerSelfTest(ctx)),
);

/** POST orchestrator/test-enhanced-orchestrator (admin): one real execution of the sample company, run inline. */
export const testEnhancedOrchestrator = op<LiveUser>('Runs one real execution of a sample company, inline, and reports it', async ({ ctx, principal }) =>
  json(200, await sampleExecution(ctx, principal)),
);
