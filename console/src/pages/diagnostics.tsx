import { useState } from 'preact/hooks';
import { orchestratorApi, serviceHealth, type ServiceName } from '../api';
import { AsyncView, ErrorMessage, useAsync } from '../components/async';
import { ConfirmButton } from '../components/confirm';
import { PageTitle, StatusBadge } from '../components/layout';
import { formatDateTime } from '../format';

const SERVICES: ServiceName[] = ['identity', 'payment', 'orchestrator', 'visual'];

export function Diagnostics() {
  return (
    <>
      <PageTitle title="Diagnostics">Diagnostics</PageTitle>
      <ServiceHealth />
      <SchemaCheck />
      <TestRun
        id="workflow-logger"
        title="Workflow logger test"
        description="Logs a start and a completion for every stage of a test execution, then reports how many rows reached SQL."
        run={orchestratorApi.testWorkflowLogger}
      />
      <TestRun
        id="enhanced-orchestrator"
        title="Enhanced orchestrator test"
        description="Runs one real execution of a sample company through every stage, inline. It appears on the executions page (its tracking id starts with diag-) and counts in no figure: not the health score, the success rate or the alerts."
        run={orchestratorApi.testEnhancedOrchestrator}
        confirm="It calls the AI provider for every report section and stores a sample report, as a customer's report would; it takes a while."
      />
    </>
  );
}

function ServiceHealth() {
  const state = useAsync(
    () =>
      Promise.all(
        SERVICES.map((s) =>
          serviceHealth(s).then(
            (h) => ({ service: s, h }),
            (error: Error) => ({ service: s, error }),
          ),
        ),
      ),
    [],
  );
  return (
    <section aria-labelledby="health-heading">
      <h2 id="health-heading">Service health</h2>
      <AsyncView state={state} what="service health">
        {(rows) => (
          <table class="stack">
            <thead>
              <tr>
                <th scope="col">Service</th>
                <th scope="col">Status</th>
                <th scope="col">Dependencies</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <tr key={row.service} data-service={row.service} data-status={'h' in row ? row.h.status : 'unreachable'}>
                  <th scope="row" data-label="Service">
                    {row.service}
                  </th>
                  <td data-label="Status">
                    {'h' in row ? <StatusBadge status={row.h.status} /> : <StatusBadge status="unreachable" />}
                    {'h' in row && row.h.problems && <p class="reason">{row.h.problems.join('; ')}</p>}
                  </td>
                  <td data-label="Dependencies">
                    {'h' in row ? (
                      <ul class="dependencies">
                        {Object.entries(row.h.dependencies ?? {}).map(([name, d]) => (
                          <li key={name} class={d.ok ? undefined : 'failing'}>
                            {`${name}: ${d.ok ? 'ok' : 'FAILING'}, ${d.latencyMs} ms${d.error || d.detail ? ` (${d.error ?? d.detail})` : ''}`}
                          </li>
                        ))}
                      </ul>
                    ) : (
                      row.error.message
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </AsyncView>
    </section>
  );
}

function SchemaCheck() {
  const check = useAsync(() => orchestratorApi.schemaCheck(), []);
  return (
    <section aria-labelledby="schema-heading">
      <h2 id="schema-heading">Processing log schema check</h2>
      <p>
        <code>GET /orchestrator/health?schema=check</code> compares the processing log table with what the workflow logger writes.{' '}
        <button type="button" onClick={check.reload} disabled={check.loading}>
          Check again
        </button>
      </p>
      <AsyncView state={check} what="the schema check">
        {(result) => {
          const r = result as {
            isWorkflowLoggerCompatible?: boolean;
            dialect?: string;
            table?: string;
            timestamp?: string;
            recommendations?: { issue: string; sql: string }[];
          };
          return (
            <>
              <p data-result="schema">
                Table <code>{r.table}</code> ({r.dialect}):{' '}
                {r.isWorkflowLoggerCompatible ? <StatusBadge status="compatible" /> : <StatusBadge status="incompatible" />} checked{' '}
                {formatDateTime(r.timestamp)}
              </p>
              {!!r.recommendations?.length && (
                <ol>
                  {r.recommendations.map((rec) => (
                    <li key={rec.issue}>
                      {rec.issue}: <code>{rec.sql}</code>
                    </li>
                  ))}
                </ol>
              )}
              <details>
                <summary>Full answer</summary>
                <pre class="json" tabIndex={0}>
                  {JSON.stringify(result, null, 2)}
                </pre>
              </details>
            </>
          );
        }}
      </AsyncView>
    </section>
  );
}

function TestRun({
  id,
  title,
  description,
  run,
  confirm,
}: {
  id: string;
  title: string;
  description: string;
  run: () => Promise<Record<string, unknown>>;
  /** What the dialog says before a run that costs. */
  confirm?: string;
}) {
  const [state, setState] = useState<{ busy: boolean; result?: Record<string, unknown>; error?: Error }>({ busy: false });
  const start = async () => {
    setState({ busy: true });
    try {
      setState({ busy: false, result: await run() });
    } catch (error) {
      setState({ busy: false, error: error as Error });
    }
  };
  return (
    <section aria-labelledby={`${id}-heading`}>
      <h2 id={`${id}-heading`}>{title}</h2>
      <p>{description}</p>
      {confirm ? (
        <ConfirmButton
          label={`Run the ${title.toLowerCase()}`}
          title={`Run the ${title.toLowerCase()}?`}
          confirmLabel="Run it"
          disabled={state.busy}
          onConfirm={start}
        >
          <p>{confirm}</p>
        </ConfirmButton>
      ) : (
        <button type="button" onClick={() => void start()} disabled={state.busy}>
          {state.busy ? 'Running…' : `Run the ${title.toLowerCase()}`}
        </button>
      )}
      {state.busy && (
        <p role="status" class="loading">
          <span class="spinner" aria-hidden="true" /> Running…
        </p>
      )}
      {state.error && <ErrorMessage error={state.error} retry={() => void start()} what={`the ${title.toLowerCase()}`} />}
      {state.result && (
        <div data-result={id}>
          <p role="status">
            {state.result.success ? <StatusBadge status="passed" /> : <StatusBadge status="failed" />} {String(state.result.message ?? '')}
            {typeof state.result.trackingId === 'string' && (
              <>
                {' '}
                Tracking id <code>{state.result.trackingId}</code>.
              </>
            )}
          </p>
          <details>
            <summary>Full answer</summary>
            <pre class="json" tabIndex={0}>
              {JSON.stringify(state.result, null, 2)}
            </pre>
          </details>
        </div>
      )}
    </section>
  );
}
