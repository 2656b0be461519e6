import type { ReportAnalysis } from '../report/analysis';
import type { SectionDefinition } from '../workflow/stages';

export interface SectionDraft {
  text: string;
  tokensUsed: number | null;
  model: string;
}

/** Writes one report section from the prepared analysis. */
export interface AiProvider {
  readonly name: 'offline' | 'openai' | 'azure-openai';
  /** Offline reports say so on their cover. */
  readonly offline: boolean;
  writeSection(section: SectionDefinition, analysis: ReportAnalysis): Promise<SectionDraft>;
}
