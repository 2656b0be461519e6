import { stepsFor } from '../../functions/orchestrator/workflow/stages';
import { startTestHost, type TestHost } from '../helpers/host';
import { startChatServer, type ChatServer } from './chat-server';
import { parseAssets } from '../../functions/orchestrator/workflow/executions';
import { deadPort, orchestratorCtx, parsePdf, submitDirect, waitForRows, waitForStatus } from './helpers';

describe('executions with the openai provider (local chat-completions server)', () => {
  let host: TestHost;
  let chat: ChatServer;

  beforeAll(async () => {
    chat = await startChatServer();
    host = await startTestHost({
      env: {
        VISUAL_URL: `http://127.0.0.1:${await deadPort()}/visual`,
        ORCHESTRATOR_AI_ENDPOINT: chat.url,
        ORCHESTRATOR_AI_MAX_RETRIES: '2',
        ORCHESTRATOR_AI_TIMEOUT_MS: '2000',
        ORCHESTRATOR_LOG_FLUSH_MS: '20',
      },
    });
  });
  afterAll(async () => {
    await host.stop();
    await chat.close();
  });

  it('records the tokens of each section step and their total on AI_ORCHESTRATION', async () => {
    chat.script([{ status: 200, tokens: 100 }]);
    await submitDirect('ai-ok', 'free');
    await waitForStatus('ai-ok', 'completed');
    const rows = await waitForRows('ai-ok', stepsFor('free').length * 2);
    const completed = rows.filter((r) => r.status === 'completed');
    expect(completed.filter((r) => r.step_number! >= 5 && r.step_number! <= 10).map((r) => [r.step_number, r.tokens_used])).toEqual([
      [5, 100],
      [6, 100],
      [10, 100],
    ]);
    expect(completed.find((r) => r.step_number === 4)!.tokens_used).toBe(300);
    expect(JSON.parse(completed.find((r) => r.step_number === 5)!.metadata!)).toMatchObject({ provider: 'openai', tokens_used: 100 });
  });

  it('sections whose answers miss the schema twice are written deterministically; the step says so and the report tells the reader', async () => {
    chat.script([{ status: 200, content: '{"paragraphs": ["No full stop here"], "bullets": []}', tokens: 40 }]);
    chat.requests.length = 0;
    await submitDirect('ai-schema', 'free');
    const done = await waitForStatus('ai-schema', 'completed');
    // One retry per section: two requests each for the free plan's three sections.
    expect(chat.requests).toHaveLength(6);
    const rows = await waitForRows('ai-schema', stepsFor('free').length * 2);
    const sections = rows.filter((r) => r.status === 'completed' && r.step_number! >= 5 && r.step_number! <= 10);
    expect(sections.map((r) => [r.step_number, r.tokens_used, JSON.parse(r.metadata!).structured_output])).toEqual([
      [5, 80, 'deterministic'],
      [6, 80, 'deterministic'],
      [10, 80, 'deterministic'],
    ]);
    const [link] = await orchestratorCtx().reports.downloadLinks(parseAssets(done));
    const text = (await parsePdf(Buffer.from(await (await fetch(link.url)).arrayBuffer()))).text.replace(/\s+/g, ' ');
    expect(text).toContain('did not have the required structure, so those sections were written deterministically from the figures');
    expect(text).not.toContain('No full stop here');
  });

  it('a 429 is retried; when it persists the execution fails with RATE_LIMIT from AI_SERVICE', async () => {
    chat.script([{ status: 429, retryAfter: '0' }]);
    chat.requests.length = 0;
    await submitDirect('ai-429', 'pro');
    const failed = await waitForStatus('ai-429', 'failed');
    expect(chat.requests).toHaveLength(3);
    expect(failed).toMatchObject({ error_pattern: 'RATE_LIMIT', error_source: 'AI_SERVICE', error_step: 'SECTION_EXECUTIVE_SUMMARY', health_status: 'FAILED' });
    const rows = await waitForRows('ai-429', 12);
    const failures = rows.filter((r) => r.status === 'failed');
    // The section carries the classification; the stage it failed inside says which step failed, unclassified, so the failure counts once.
    expect(failures.map((r) => [r.step_name, r.error_pattern, r.error_source])).toEqual([
      ['SECTION_EXECUTIVE_SUMMARY', 'RATE_LIMIT', 'AI_SERVICE'],
      ['AI_ORCHESTRATION', null, null],
    ]);
    expect(failures[0].error_message).toMatch(/429/);
    expect(failures[1].error_message).toBe(failures[0].error_message);
    expect(JSON.parse(failures[1].metadata!)).toMatchObject({ failed_step: 'SECTION_EXECUTIVE_SUMMARY' });
    // Nothing after the failed stage ran.
    expect(rows.some((r) => r.step_number === 11)).toBe(false);
  });
});
