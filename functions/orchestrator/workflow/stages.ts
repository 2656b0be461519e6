import type { Plan } from '../../../shared/auth/access-token';

/** One logged step of the workflow: the fixed stages (numbers 0-4, 11, 12 and 99), and the report sections as steps 5-10. */
export interface Step {
  number: number;
  name: string;
}

export const STAGES = {
  WORKFLOW_START: { number: 0, name: 'WORKFLOW_START' },
  PROFILE_RETRIEVAL: { number: 1, name: 'PROFILE_RETRIEVAL' },
  STATUS_UPDATE: { number: 2, name: 'STATUS_UPDATE' },
  DATA_PREPARATION: { number: 3, name: 'DATA_PREPARATION' },
  AI_ORCHESTRATION: { number: 4, name: 'AI_ORCHESTRATION' },
  PDF_ENHANCEMENT: { number: 11, name: 'PDF_ENHANCEMENT' },
  STORAGE_PROCESSING: { number: 12, name: 'STORAGE_PROCESSING' },
  WORKFLOW_COMPLETE: { number: 99, name: 'WORKFLOW_COMPLETE' },
} as const satisfies Record<string, Step>;

export type SectionId = 'executive_summary' | 'financial_analysis' | 'market_position' | 'operations' | 'risks_and_challenges' | 'recommendations';

export interface SectionDefinition extends Step {
  id: SectionId;
  title: string;
  /** What the section must cover; the AI prompt and the offline writer both follow it. */
  brief: string;
}

/** The report sections, each with a fixed step number so dashboards can compare runs across plans. */
export const SECTIONS: readonly SectionDefinition[] = [
  {
    id: 'executive_summary',
    number: 5,
    name: 'SECTION_EXECUTIVE_SUMMARY',
    title: 'Executive Summary',
    brief: 'The company, its size, its revenue trajectory and the main conclusion in a few sentences.',
  },
  {
    id: 'financial_analysis',
    number: 6,
    name: 'SECTION_FINANCIAL_ANALYSIS',
    title: 'Financial Analysis',
    brief: 'Revenue by year, year-over-year growth, compound annual growth, margins and what drives them.',
  },
  {
    id: 'market_position',
    number: 7,
    name: 'SECTION_MARKET_POSITION',
    title: 'Market Position',
    brief: 'The industry sector, how the company compares with typical growth in it, and its stated goals.',
  },
  {
    id: 'operations',
    number: 8,
    name: 'SECTION_OPERATIONS',
    title: 'Operations and Productivity',
    brief: 'Headcount, revenue per employee and the key operating metrics supplied.',
  },
  {
    id: 'risks_and_challenges',
    number: 9,
    name: 'SECTION_RISKS_AND_CHALLENGES',
    title: 'Risks and Challenges',
    brief: 'The challenges supplied and the risks the numbers reveal (volatility, declining margins).',
  },
  {
    id: 'recommendations',
    number: 10,
    name: 'SECTION_RECOMMENDATIONS',
    title: 'Recommendations',
    brief: 'Concrete, prioritised actions tied to the goals, challenges and figures.',
  },
];

/** What each plan gets: free a short report, pro the full report, enterprise the full report and a presentation. */
export const PLAN_REPORTS: Record<Plan, { sections: readonly SectionId[]; presentation: boolean }> = {
  free: { sections: ['executive_summary', 'financial_analysis', 'recommendations'], presentation: false },
  pro: { sections: SECTIONS.map((s) => s.id), presentation: false },
  enterprise: { sections: SECTIONS.map((s) => s.id), presentation: true },
};

export function sectionsFor(plan: Plan): SectionDefinition[] {
  const wanted = PLAN_REPORTS[plan].sections;
  return SECTIONS.filter((s) => wanted.includes(s.id));
}

/** Every step an execution of this plan logs, in order (the progress denominator). */
export function stepsFor(plan: Plan): Step[] {
  return [
    STAGES.WORKFLOW_START,
    STAGES.PROFILE_RETRIEVAL,
    STAGES.STATUS_UPDATE,
    STAGES.DATA_PREPARATION,
    STAGES.AI_ORCHESTRATION,
    ...sectionsFor(plan),
    STAGES.PDF_ENHANCEMENT,
    STAGES.STORAGE_PROCESSING,
    STAGES.WORKFLOW_COMPLETE,
  ];
}
