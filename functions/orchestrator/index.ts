import type { ServiceDefinition } from '../../shared/functions';
import { adminFunctions } from './admin';
import { consoleFunctions } from './console';
import { testEnhancedOrchestrator, testWorkflowLogger } from './routes/diagnostics';
import { health } from './routes/health';
import { createReport, getReport } from './routes/reports';
import { runQueuedExecution } from './workflow/queue';
import { reportQueueDepth } from './workflow/queue-depth';
import { failStuckExecutions } from './workflow/stuck';
import { closeWorkflowLogWriter } from './workflow/workflow-logger';
import { config, serviceUrl } from '../../shared/config';
import { plans } from '../../shared/plans';

export const orchestrator: ServiceDefinition = {
  name: 'orchestrator',
  functions: [
    { kind: 'http', name: 'orchestrator-health', route: 'orchestrator/health', methods: ['GET'], handler: health },
    { kind: 'http', name: 'orchestrator-reports-create', route: 'orchestrator/api/reports', methods: ['POST'], handler: createReport },
    { kind: 'http', name: 'orchestrator-reports-get', route: 'orchestrator/api/reports/{trackingId}', methods: ['GET'], handler: getReport },
    { kind: 'http', name: 'orchestrator-test-workflow-logger', route: 'orchestrator/test-workflow-logger', methods: ['POST'], handler: testWorkflowLogger },
    { kind: 'http', name: 'orchestrator-test-enhanced-orchestrator', route: 'orchestrator/test-enhanced-orchestrator', methods: ['POST'], handler: testEnhancedOrchestrator },
    { kind: 'queue', name: 'orchestrator-run-execution', queueName: '%ORCHESTRATOR_QUEUE%', handler: runQueuedExecution },
    // Every minute: fail stuck executions, then write the queue-depth line the production alerts read.
    { kind: 'timer', name: 'orchestrator-fail-stuck-executions', schedule: '0 * * * * *', handler: async () => void (await failStuckExecutions().finally(() => reportQueueDepth())) },
    ...adminFunctions,
    ...consoleFunctions,
  ],
  /** A bad plan table (PLANS_JSON) stops the host at start rather than failing report requests. */
  async start() {
    plans();
  },
  stop: closeWorkflowLogWriter,
  describe: () => {
    const cfg = config();
    const ai = cfg.ORCHESTRATOR_AI_PROVIDER ?? (cfg.ORCHESTRATOR_AI_ENDPOINT ? 'openai' : 'offline');
    return [
      `orchestrator AI provider ${ai}; queue ${cfg.ORCHESTRATOR_QUEUE}; reports in container ${cfg.ORCHESTRATOR_REPORTS_CONTAINER}`,
      `console      ${serviceUrl('orchestrator')}/console/ (administration; admin and super_admin sign in with the emailed code)`,
    ];
  },
};
