import { ORCHESTRATOR_SETTINGS } from './settings';
import type { Kysely } from 'kysely';
import { CREDENTIAL } from '../../shared/azure-credential';
import { defineContext } from '../../shared/context';
import { opsFor } from '../../shared/http/route';
import type { Mailer } from '../../shared/mail/mailer';
import { DATABASE } from '../../shared/sql/db';
import type { AiProvider } from './ai';
import type { OrchestratorTables } from './db/tables';
import type { ReportStore } from './report/report-store';
import type { VisualClient } from './visual-client';
import type { LogWriter } from './workflow/log-writer';

// What a getter makes is loaded with the first invocation that asks for it: a health probe or an
// admin read loads no AI provider, report store or log writer it does not use (cold start).
const ai = () => require('./ai') as typeof import('./ai');
const store = () => require('./report/report-store') as typeof import('./report/report-store');
const visual = () => require('./visual-client') as typeof import('./visual-client');
const mail = () => require('../../shared/mail/mailer') as typeof import('../../shared/mail/mailer');
const workflowLog = () => require('./workflow/workflow-logger') as typeof import('./workflow/workflow-logger');

/**
 * What the orchestrator's code is handed per invocation: the shared part (settings, clock, logger,
 * storage, plans), its view of the database, and its clients, each made on first use.
 */
export const orchestratorContext = defineContext('orchestrator', ORCHESTRATOR_SETTINGS, (base) => {
  const { platform, config } = base;
  let provider: AiProvider | undefined;
  return {
    /** The platform's database (one pool per platform, opened on first use), as the orchestrator's tables. */
    get db(): Kysely<OrchestratorTables> {
      return platform.get(DATABASE) as Kysely<OrchestratorTables>;
    },
    /** The AI model that writes the report's sections, as the settings name it (throws when they name one without its endpoint). */
    get ai(): AiProvider {
      return (provider ??= ai().aiProvider(config, () => platform.get(CREDENTIAL)));
    },
    /** The visual service (charts, infographics, the console's trend chart). */
    get visual(): VisualClient {
      return visual().visualClient(config);
    },
    /** Where report files are stored, and the signed links they are downloaded by. */
    get reports(): ReportStore {
      return store().reportStore({ storage: base.storage, config, now: base.now, delegation: platform.get(store().DELEGATION_KEY) });
    },
    /** How the orchestrator tells a requester their report is ready or failed: SMTP, Azure Communication Services, or the local outbox. */
    get mailer(): Mailer {
      return mail().mailerOn(platform);
    },
    /** The platform's batch writer of workflow log rows (one per instance; its flushes run off the workflow's path). */
    get logWriter(): LogWriter {
      return platform.get(workflowLog().WORKFLOW_LOG_WRITER);
    },
  };
});

export type OrchestratorContext = ReturnType<typeof orchestratorContext>;

/** The orchestrator's operation helper: every handler gets its context. */
export const op = opsFor<OrchestratorContext>();
