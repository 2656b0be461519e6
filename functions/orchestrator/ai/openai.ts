import OpenAI, { AzureOpenAI } from 'openai';
import { azureCredential } from '../../../shared/azure-credential';
import type { Config } from '../../../shared/config';
import type { ReportAnalysis } from '../report/analysis';
import { DependencyError } from '../workflow/error-classification';
import type { SectionDefinition } from '../workflow/stages';
import type { AiProvider, SectionDraft } from './provider';

const SYSTEM_PROMPT =
  'You are a senior business analyst writing one section of a company report. Use only the figures given; never invent numbers. ' +
  'Write plain text (no markdown headings), at most 250 words.';

/**
 * fetch for the client that reports its own deadline as "timed out". The abort undici raises is a
 * DOMException; where the SDK runs in another realm than undici (test runners' module sandboxes)
 * it is not an `Error` there and would be reported as a plain connection error.
 */
const fetchWithTimeoutName: typeof fetch = (input, init) =>
  fetch(input, init).catch((error: { name?: string; message?: string }) => {
    if (error?.name === 'AbortError' || error?.name === 'TimeoutError') throw new Error(`Request timed out (${error.name})`);
    throw error;
  });

/**
 * Sections from a chat-completions endpoint (OpenAI, Azure OpenAI, or any compatible server).
 * The openai client does the retrying: on 408/409/429/5xx and connection errors, with
 * exponential backoff, honouring Retry-After / retry-after-ms.
 */
export class OpenAiProvider implements AiProvider {
  readonly offline = false;
  private readonly client: OpenAI;

  constructor(
    readonly name: 'openai' | 'azure-openai',
    private readonly cfg: Config,
  ) {
    const common = { timeout: cfg.ORCHESTRATOR_AI_TIMEOUT_MS, maxRetries: cfg.ORCHESTRATOR_AI_MAX_RETRIES, fetch: fetchWithTimeoutName };
    if (name === 'azure-openai') {
      const { getBearerTokenProvider } = require('@azure/identity') as typeof import('@azure/identity');
      this.client = new AzureOpenAI({
        ...common,
        endpoint: cfg.ORCHESTRATOR_AI_ENDPOINT,
        apiVersion: cfg.ORCHESTRATOR_AI_API_VERSION,
        deployment: cfg.ORCHESTRATOR_AI_MODEL,
        ...(cfg.ORCHESTRATOR_AI_API_KEY
          ? { apiKey: cfg.ORCHESTRATOR_AI_API_KEY }
          : { azureADTokenProvider: getBearerTokenProvider(azureCredential(), 'https://cognitiveservices.azure.com/.default') }),
      });
    } else {
      // Local OpenAI-compatible servers often need no key; the client insists on one.
      this.client = new OpenAI({ ...common, baseURL: cfg.ORCHESTRATOR_AI_ENDPOINT, apiKey: cfg.ORCHESTRATOR_AI_API_KEY ?? 'not-needed' });
    }
  }

  async writeSection(section: SectionDefinition, analysis: ReportAnalysis): Promise<SectionDraft> {
    try {
      const completion = await this.client.chat.completions.create({
        model: this.cfg.ORCHESTRATOR_AI_MODEL,
        max_tokens: this.cfg.ORCHESTRATOR_AI_MAX_TOKENS,
        temperature: 0.3,
        messages: [
          { role: 'system', content: SYSTEM_PROMPT },
          { role: 'user', content: `Section: ${section.title}\nCover: ${section.brief}\nFigures (JSON): ${JSON.stringify(analysis)}` },
        ],
      });
      const text = completion.choices[0]?.message?.content?.trim();
      if (!text) throw new Error(`chat.completions returned no content for ${section.name}`);
      return { text, tokensUsed: completion.usage?.total_tokens ?? null, model: completion.model || this.cfg.ORCHESTRATOR_AI_MODEL };
    } catch (error) {
      throw new DependencyError('AI_SERVICE', error);
    }
  }
}
