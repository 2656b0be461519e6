import type { TokenCredential } from '@azure/identity';
import OpenAI, { AzureOpenAI } from 'openai';
import type { OrchestratorConfig } from '../settings';
import { indicatorFigures, keyFigures, type ReportAnalysis } from '../report/analysis';
import { reportFormat } from '../report/words';
import { DependencyError } from '../workflow/error-classification';
import type { SectionDefinition } from '../workflow/stages';
import { deterministicSection } from './offline';
import type { AiProvider, SectionDraft } from './provider';
import { checkSectionContent, sectionContentSchema } from './section-content';
import { messages, reportLanguage, type Language } from '../i18n/catalogue';

/** The instructions, asking for the report's language (named in English, which every model reads); the response schema checks it. */
function systemPrompt(language: Language): string {
  const name = new Intl.DisplayNames('en', { type: 'language' }).of(language) ?? language;
  return (
    'You are a senior business analyst writing one section of a report a client pays for. Use only the figures given, written exactly as given; never invent numbers. ' +
    `Write whole sentences in plain ${name} (no markdown, no field names), at most 250 words, as JSON matching the response schema: ` +
    `"language": "${language}", paragraphs of prose, and a list only where the section calls for one (actions, risks, goals). ` +
    (language === 'en'
      ? ''
      : `Every sentence and list item must be in ${name}, even though the facts below may be labelled in English; company names stay as given.`)
  );
}

/** Keywords a model's strict structured output accepts everywhere; the finer rules (lengths, counts, sentence endings) are checked here with ajv. */
const MODEL_SCHEMA_KEYWORDS: ReadonlySet<string> = new Set(['type', 'properties', 'required', 'additionalProperties', 'items', 'description', 'enum']);
function modelSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(modelSchema);
  if (!schema || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'properties') out[key] = Object.fromEntries(Object.entries(value as object).map(([name, sub]) => [name, modelSchema(sub)]));
    else if (MODEL_SCHEMA_KEYWORDS.has(key)) out[key] = modelSchema(value);
  }
  return out;
}
const responseFormat = (language: Language) => ({
  type: 'json_schema' as const,
  json_schema: { name: 'report_section', strict: true, schema: modelSchema(sectionContentSchema(language)) as Record<string, unknown> },
});

/** What the model is told about the company: labelled figures in the report's locale, never the analysis's field names. */
export function promptFacts(a: ReportAnalysis): string {
  const f = reportFormat(a.locale);
  return JSON.stringify({
    company: a.companyName,
    sector: `${a.industryName} (NAICS ${a.industryId})`,
    description: a.description,
    founded: a.foundedYear,
    employees: a.employees === null ? null : f.number(a.employees, 0),
    revenueTrend: a.trend,
    figures: [...keyFigures(a), ...indicatorFigures(a)].map((x) => `${x.label}: ${x.value}`),
    years: a.years.map((y) =>
      [
        `${y.year}: revenue ${f.money(y.revenue, a.currency)}`,
        y.growthPct !== null ? `growth ${f.percent(y.growthPct, { signed: true })}` : '',
        y.netIncome !== null ? `net income ${f.money(y.netIncome, a.currency)}` : '',
        y.marginPct !== null ? `net margin ${f.percent(y.marginPct)}` : '',
      ]
        .filter(Boolean)
        .join(', '),
    ),
    goals: a.goals,
    challenges: a.challenges,
  });
}

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

  /** `credential`: the managed identity, asked for only by Azure OpenAI without an API key. */
  constructor(
    readonly name: 'openai' | 'azure-openai',
    private readonly cfg: OrchestratorConfig,
    credential: () => TokenCredential,
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
          : { azureADTokenProvider: getBearerTokenProvider(credential(), 'https://cognitiveservices.azure.com/.default') }),
      });
    } else {
      // Local OpenAI-compatible servers often need no key; the client insists on one.
      this.client = new OpenAI({ ...common, baseURL: cfg.ORCHESTRATOR_AI_ENDPOINT, apiKey: cfg.ORCHESTRATOR_AI_API_KEY ?? 'not-needed' });
    }
  }

  /**
   * One section as structured output, in the report's language: the answer must match the
   * language's sectionContentSchema (ajv), which names the language and, for Japanese and Chinese,
   * checks the script. An answer
   * off the schema is asked for once more, quoting the problem; a second miss gives the
   * deterministic text for this section, so a report never prints what a model garbled. Transport
   * failures (429, 5xx, timeouts) are the client's to retry and then fail the step.
   */
  async writeSection(section: SectionDefinition, analysis: ReportAnalysis): Promise<SectionDraft> {
    const language = reportLanguage(analysis.locale);
    const title = messages(analysis.locale).t(`section.${section.id}`);
    const conversation: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [
      { role: 'system', content: systemPrompt(language) },
      { role: 'user', content: `Section: ${title}\nCover: ${section.brief}\nLanguage: ${language}\nFacts (JSON): ${promptFacts(analysis)}` },
    ];
    let tokens: number | null = null;
    let model = this.cfg.ORCHESTRATOR_AI_MODEL;
    for (let attempt = 1; attempt <= 2; attempt++) {
      const completion = await this.complete(conversation, language);
      if (completion.usage?.total_tokens !== undefined) tokens = (tokens ?? 0) + completion.usage.total_tokens;
      model = completion.model || model;
      const message = completion.choices[0]?.message;
      const check = message?.refusal
        ? { ok: false as const, problem: `the model refused: ${message.refusal}` }
        : completion.choices[0]?.finish_reason === 'length'
          ? { ok: false as const, problem: 'the answer was cut off at the token limit' }
          : checkSectionContent(message?.content, language);
      if (check.ok) return { content: check.content, tokensUsed: tokens, model, structuredOutput: attempt === 1 ? 'valid' : 'retried' };
      conversation.push(
        { role: 'assistant', content: message?.content ?? '' },
        {
          role: 'user',
          content: `That answer does not match the response schema (${check.problem}). Answer again with JSON that matches it, shorter if need be.`,
        },
      );
    }
    return { content: deterministicSection(section, analysis), tokensUsed: tokens, model, structuredOutput: 'deterministic' };
  }

  private async complete(messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[], language: Language): Promise<OpenAI.Chat.Completions.ChatCompletion> {
    try {
      return await this.client.chat.completions.create({
        model: this.cfg.ORCHESTRATOR_AI_MODEL,
        max_tokens: this.cfg.ORCHESTRATOR_AI_MAX_TOKENS,
        temperature: 0.3,
        response_format: responseFormat(language),
        messages,
      });
    } catch (error) {
      throw new DependencyError('AI_SERVICE', error);
    }
  }
}
