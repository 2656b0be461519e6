import { orchestratorConfig } from './settings';
import { queues, type ServiceDefinition } from '../../shared/functions';
import { contractRoutes } from '../../shared/http/contract';
import { planTable } from '../../shared/plans';
import { serviceUrl } from '../../shared/config';
import { aiProviderName } from './ai/provider';
import { orchestratorContext } from './context';
import { ROUTES, DESCRIPTION } from './routes';
import { TIMERS } from './timers';
import { runQueuedExecution } from './workflow/queue';
import { WORKFLOW_LOG_WRITER } from './workflow/workflow-logger';

const queue = queues('orchestrator', orchestratorContext);

export const orchestrator: ServiceDefinition = {
  name: 'orchestrator',
  functions: [
    ...ROUTES,
    ...contractRoutes('orchestrator', DESCRIPTION, () => ROUTES),
    // The execution queue (ORCHESTRATOR_QUEUE): each message runs one execution.
    queue('run-execution', '%ORCHESTRATOR_QUEUE%', runQueuedExecution),
    ...TIMERS,
  ],
  /** A bad plan table (PLANS_JSON) stops the host at start rather than failing report requests. */
  async start(platform) {
    planTable(orchestratorConfig(platform).PLANS_JSON);
  },
  stop: (platform) => platform.release(WORKFLOW_LOG_WRITER),
  describe: (platform) => {
    const cfg = orchestratorConfig(platform);
    return [
      `orchestrator AI provider ${aiProviderName(cfg)}; queue ${cfg.ORCHESTRATOR_QUEUE}; reports in container ${cfg.ORCHESTRATOR_REPORTS_CONTAINER}`,
      `console      ${serviceUrl('orchestrator', cfg)}/console/ (administration; admin and super_admin sign in with the emailed code)`,
    ];
  },
};
