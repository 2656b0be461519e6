import { OpenAiProvider } from '../../functions/orchestrator/ai/openai';
import { analyse } from '../../functions/orchestrator/report/analysis';
import { classifyError } from '../../functions/orchestrator/workflow/error-classification';
import { SECTIONS } from '../../functions/orchestrator/workflow/stages';
import { parseConfig } from '../../shared/config';
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
      parseConfig({
        SERVICES: 'orchestrator',
        ORCHESTRATOR_AI_ENDPOINT: server.url,
        ORCHESTRATOR_AI_MODEL: 'test-model',
        ORCHESTRATOR_AI_MAX_RETRIES: '2',
        ORCHESTRATOR_AI_TIMEOUT_MS: '2000',
        ...env,
      }),
    );

  beforeAll(async () => {
    server = await startChatServer();
  });
  beforeEach(() => {
    server.requests.length = 0;
  });
  afterAll(() => server.close());

  it('writes a section from the figures and records the tokens used', async () => {
    server.script([{ status: 200, content: 'Acme grows steadily.', tokens: 321 }]);
    const draft = await provider().writeSection(section, analysis);
    expect(draft).toEqual({ text: 'Acme grows steadily.', tokensUsed: 321, model: 'test-model' });
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0].body.model).toBe('test-model');
    expect(server.requests[0].body.messages[1].content).toContain('"companyName":"Acme Widgets GmbH"');
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
