import type { ServiceDefinition } from '../../shared/functions';
import { contractRoutes } from '../../shared/http/contract';
import { runQueuedExecution } from './workflow/queue';
import { TIMERS } from './timers';
import { WORKFLOW_LOG_WRITER } from './workflow/workflow-logger';
import { config, serviceUrl } from '../../shared/config';
import { plans } from '../../shared/plans';
import { ROUTES, DESCRIPTION } from './routes';

export const orchestrator: ServiceDefinition = {
  name: 'orchestrator',
  functions: [
    ...ROUTES,
    ...contractRoutes('orchestrator', DESCRIPTION, () => ROUTES),
    { kind: 'queue', name: 'orchestrator-run-execution', queueName: '%ORCHESTRATOR_QUEUE%', handler: runQueuedExecution },
    ...TIMERS,
  ],
  /** A bad plan table (PLANS_JSON) stops the host at start rather than failing report requests. */
  async start() {
    plans();
  },
  stop: (platform) => platform.release(WORKFLOW_LOG_WRITER),
  describe: () => {
    const cfg = config();
    const ai = cfg.ORCHESTRATOR_AI_PROVIDER ?? (cfg.ORCHESTRATOR_AI_ENDPOINT ? 'openai' : 'offline');
    return [
      `orchestrator AI provider ${ai}; queue ${cfg.ORCHESTRATOR_QUEUE}; reports in container ${cfg.ORCHESTRATOR_REPORTS_CONTAINER}`,
      `console      ${serviceUrl('orchestrator')}/console/ (administration; admin and super_admin sign in with the emailed code)`,
    ];
  },
};
