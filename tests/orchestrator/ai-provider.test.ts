import { deterministicSection } from '../../functions/orchestrator/ai/offline';
import { OpenAiProvider } from '../../functions/orchestrator/ai/openai';
import { analyse } from '../../functions/orchestrator/report/analysis';
import { classifyError } from '../../functions/orchestrator/workflow/error-classification';
import { SECTIONS } from '../../functions/orchestrator/workflow/stages';
import { parseAppConfig } from '../../functions/settings';
import { waitFor } from '../helpers/wait';
import { startChatServer, type ChatServer } from './chat-server';
import { ACME } from './helpers';

const section = SECTIONS[0];
const analysis = analyse(ACME);

describe('openai provider against a local chat-completions server', () => {
  let server: ChatServer;
  const provider = (env: Record<string, string> = {}) =>
    new OpenAiProvider(
      'openai',
      parseAppConfig({
        SERVICES: 'orchestrator',
        ORCHESTRATOR_AI_ENDPOINT: server.url,
        ORCHESTRATOR_AI_MODEL: 'test-model',
        ORCHESTRATOR_AI_MAX_RETRIES: '2',
        ORCHESTRATOR_AI_TIMEOUT_MS: '2000',
        ...env,
      }),
      () => {
        throw new Error('no managed identity here: the provider is given an API key or none');
      },
    );

  beforeAll(async () => {
    server = await startChatServer();
  });
  beforeEach(() => {
    server.requests.length = 0;
  });
  afterAll(() => server.close());

  it('asks for the section as structured output from labelled figures, and records the tokens used', async () => {
    const answer = { language: 'en', paragraphs: ['Acme grows steadily, and its customer_retention_pct holds at 91 %.'], bullets: ['Hire  welders'] };
    server.script([{ status: 200, content: JSON.stringify(answer), tokens: 321 }]);
    const draft = await provider().writeSection(section, analysis);
    // Checked by ajv, then tidied: a field name the model echoed reads as words; spaces collapsed.
    expect(draft).toEqual({
      content: { paragraphs: ['Acme grows steadily, and its customer retention holds at 91 %.'], bullets: ['Hire welders'] },
      tokensUsed: 321,
      model: 'test-model',
      structuredOutput: 'valid',
    });
    expect(server.requests).toHaveLength(1);
    const { body } = server.requests[0];
    expect(body.model).toBe('test-model');
    // The strict schema the model gets has the shape; lengths, counts and sentence endings are checked here.
    expect(body.response_format).toMatchObject({ type: 'json_schema', json_schema: { name: 'report_section', strict: true } });
    const sent = JSON.stringify(body.response_format!.json_schema!.schema);
    expect(sent).toContain('"required":["language","paragraphs","bullets"]');
    // The report's language is asked for in the prompt and named by the schema (the answer must say "en").
    expect(sent).toContain('"enum":["en"]');
    expect(body.messages[0].content).toContain('plain English');
    expect(sent).not.toMatch(/pattern|minLength|maxItems/);
    // The model sees figures in words and in the report's locale, never the analysis's field names.
    const prompt = body.messages[1].content;
    expect(prompt).toContain('Acme Widgets GmbH');
    expect(prompt).toContain('Customer retention: 91');
    expect(prompt).toContain('€16.9M');
    expect(prompt).not.toMatch(/[a-z]+_[a-z]+/);
  });

  it('an answer off the schema is asked for once more, quoting the problem; a valid second answer is used', async () => {
    const valid = { paragraphs: ['Acme grew revenue by a third in three years.'], bullets: [] };
    server.script([
      { status: 200, content: 'Here is your section: Acme grows.', tokens: 100 },
      { status: 200, content: JSON.stringify({ language: 'en', ...valid }), tokens: 150 },
    ]);
    const draft = await provider().writeSection(section, analysis);
    expect(draft).toMatchObject({ content: valid, tokensUsed: 250, structuredOutput: 'retried' });
    expect(server.requests).toHaveLength(2);
    const retry = server.requests[1].body.messages;
    expect(retry[2]).toEqual({ role: 'assistant', content: 'Here is your section: Acme grows.' });
    expect(retry[3].content).toContain('the answer is not JSON');
  });

  it('two answers off the schema give the deterministic text for the section', async () => {
    // Valid JSON, but a paragraph that is not a whole sentence and an unknown field: the schema refuses both.
    server.script([
      { status: 200, content: JSON.stringify({ language: 'en', paragraphs: ['Acme grows without a full stop'], bullets: [], extra: 1 }), tokens: 90 },
    ]);
    const draft = await provider().writeSection(section, analysis);
    expect(server.requests).toHaveLength(2);
    expect(server.requests[1].body.messages[3].content).toMatch(/must match pattern|must NOT have additional properties/);
    expect(draft).toEqual({ content: deterministicSection(section, analysis), tokensUsed: 180, model: 'test-model', structuredOutput: 'deterministic' });
  });

  it('retries a 429 after the Retry-After the server asks for, then succeeds', async () => {
    server.script([
      { status: 429, retryAfter: '1' },
      { status: 200, tokens: 50 },
    ]);
    const draft = await provider().writeSection(section, analysis);
    expect(draft.tokensUsed).toBe(50);
    expect(server.requests).toHaveLength(2);
    // Retry-After: 1 means at least a second between the attempts (the client's own backoff would be ~0.5 s).
    expect(server.requests[1].at - server.requests[0].at).toBeGreaterThanOrEqual(950);
  });

  it('a persistent 429 fails after the retries and is classified RATE_LIMIT from AI_SERVICE', async () => {
    server.script([{ status: 429, retryAfter: '0' }]);
    const error = await provider()
      .writeSection(section, analysis)
      .catch((e: unknown) => e);
    expect(server.requests).toHaveLength(3);
    expect(classifyError(error)).toEqual({ pattern: 'RATE_LIMIT', source: 'AI_SERVICE' });
  });

  it('retries a 500 and succeeds', async () => {
    server.script([{ status: 500 }, { status: 200, tokens: 77 }]);
    const draft = await provider().writeSection(section, analysis);
    expect(draft.tokensUsed).toBe(77);
    expect(server.requests).toHaveLength(2);
  });

  it('a persistent 500 is classified AI_SERVICE', async () => {
    server.script([{ status: 500 }]);
    const error = await provider({ ORCHESTRATOR_AI_MAX_RETRIES: '0' })
      .writeSection(section, analysis)
      .catch((e: unknown) => e);
    expect(server.requests).toHaveLength(1);
    expect(classifyError(error)).toEqual({ pattern: 'AI_SERVICE', source: 'AI_SERVICE' });
  });

  it('a server that never answers times out, is retried, and is classified TIMEOUT', async () => {
    server.script(['hang']);
    const error = await provider({ ORCHESTRATOR_AI_TIMEOUT_MS: '300', ORCHESTRATOR_AI_MAX_RETRIES: '1' })
      .writeSection(section, analysis)
      .catch((e: unknown) => e);
    expect(server.requests).toHaveLength(2);
    // The client hung up on each request itself (the server never answers), on the 300 ms deadline
    // it was given: the bound is 50 times that, so a loaded machine passes, yet a deadline left at
    // the setting's default (30 s) or the SDK's (10 min) fails.
    await waitFor(async () => server.requests.every((r) => r.closedAt !== undefined), 15_000, 'the server to see both requests abandoned');
    for (const request of server.requests) expect(request.closedAt! - request.at).toBeLessThan(15_000);
    expect(classifyError(error)).toEqual({ pattern: 'TIMEOUT', source: 'AI_SERVICE' });
  });
});
