import type { ReportRequest } from '../functions/orchestrator/report/submission';

/**
 * The demo's client: an engineering consultancy with three years of revenue, two goals, one
 * challenge and two key metrics. `npm run demo` orders its report; the report tests, the report
 * benchmark and the pages shown in docs/report.md render the same profile.
 */
export function demoReportRequest(company: string) {
  return {
    company_name: company,
    industry_id: '54' as const,
    profile: {
      description: 'Engineering consultancy for water utilities',
      employees: 42,
      founded_year: 2012,
      currency: 'USD',
      revenue_history: [
        { year: 2022, revenue: 3_100_000, net_income: 240_000 },
        { year: 2023, revenue: 3_650_000, net_income: 310_000 },
        { year: 2024, revenue: 4_420_000, net_income: 455_000 },
      ],
      goals: ['Open a second office', 'Grow recurring maintenance contracts'],
      challenges: ['Hiring senior engineers'],
      key_metrics: { gross_margin_pct: 38.5, customer_retention_pct: 91 },
    },
  } satisfies ReportRequest;
}
