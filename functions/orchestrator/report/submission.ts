import { badRequest, Code } from '../../../shared/http/errors';
import { supportedLocale } from './words';
import type { Infer } from '../../../shared/http/schemas';

/** NAICS 2022 sectors (two-digit codes, ranges as the standard writes them). */
export const NAICS_SECTORS: Record<string, string> = {
  '11': 'Agriculture, Forestry, Fishing and Hunting',
  '21': 'Mining, Quarrying, and Oil and Gas Extraction',
  '22': 'Utilities',
  '23': 'Construction',
  '31-33': 'Manufacturing',
  '42': 'Wholesale Trade',
  '44-45': 'Retail Trade',
  '48-49': 'Transportation and Warehousing',
  '51': 'Information',
  '52': 'Finance and Insurance',
  '53': 'Real Estate and Rental and Leasing',
  '54': 'Professional, Scientific, and Technical Services',
  '55': 'Management of Companies and Enterprises',
  '56': 'Administrative and Support and Waste Management and Remediation Services',
  '61': 'Educational Services',
  '62': 'Health Care and Social Assistance',
  '71': 'Arts, Entertainment, and Recreation',
  '72': 'Accommodation and Food Services',
  '81': 'Other Services (except Public Administration)',
  '92': 'Public Administration',
};

const shortText = { type: 'string', minLength: 1, maxLength: 300 } as const;

export const reportRequestSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['company_name', 'industry_id', 'profile'],
  properties: {
    company_name: { type: 'string', minLength: 1, maxLength: 200, pattern: '\\S' },
    industry_id: { type: 'string', enum: Object.keys(NAICS_SECTORS) },
    locale: { type: 'string', minLength: 2, maxLength: 35, pattern: '^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$' },
    profile: {
      type: 'object',
      additionalProperties: false,
      properties: {
        description: { type: 'string', maxLength: 2000 },
        employees: { type: 'integer', minimum: 0, maximum: 10_000_000 },
        founded_year: { type: 'integer', minimum: 1800, maximum: 2100 },
        currency: { type: 'string', pattern: '^[A-Z]{3}$' },
        revenue_history: {
          type: 'array',
          maxItems: 30,
          items: {
            type: 'object',
            additionalProperties: false,
            required: ['year', 'revenue'],
            properties: {
              year: { type: 'integer', minimum: 1900, maximum: 2100 },
              revenue: { type: 'number', minimum: 0, maximum: 1e15 },
              net_income: { type: 'number', minimum: -1e15, maximum: 1e15 },
            },
          },
        },
        goals: { type: 'array', maxItems: 10, items: shortText },
        challenges: { type: 'array', maxItems: 10, items: shortText },
        key_metrics: {
          type: 'object',
          maxProperties: 20,
          propertyNames: { pattern: '^[A-Za-z][A-Za-z0-9_ ]{0,59}$' },
          additionalProperties: { type: 'number', minimum: -1e15, maximum: 1e15 },
        },
      },
    },
  },
} as const;

/** A report request as the schema above checks it; `locale` says how the report writes numbers and dates (BCP 47, e.g. en-GB, de-DE; en-US when absent; the prose is English). */
export type ReportRequest = Infer<typeof reportRequestSchema>;
export type CompanyProfile = ReportRequest['profile'];
export type YearFigures = NonNullable<CompanyProfile['revenue_history']>[number];

/**
 * Control characters a report cannot print (XML, and so the presentation's parts, forbids most;
 * PDF text drops them): C0 and C1 controls and DEL, except tab, line feed and carriage return.
 */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const CONTROL_CHARACTER = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;

/** The request's free text, each with the field a refusal names. */
function textFields(request: ReportRequest): [string, string][] {
  const { profile } = request;
  return [
    ['company_name', request.company_name],
    ...(profile.description === undefined ? [] : [['profile.description', profile.description] as [string, string]]),
    ...(profile.goals ?? []).map((text, i): [string, string] => [`profile.goals[${i}]`, text]),
    ...(profile.challenges ?? []).map((text, i): [string, string] => [`profile.challenges[${i}]`, text]),
  ];
}

function refuseControlCharacters(request: ReportRequest): void {
  for (const [field, text] of textFields(request)) {
    const found = CONTROL_CHARACTER.exec(text);
    if (!found) continue;
    const code = `U+${found[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;
    throw badRequest(`Invalid body: ${field} contains a control character (${code})`, Code.VALIDATION_FAILED, {
      details: [{ field, message: `contains a control character (${code}); of those only tab, line feed and carriage return are allowed` }],
    });
  }
}

/** Rules JSON Schema cannot say: each year once; no control characters in the text; a locale this runtime can format for (stored in its canonical form). */
export function checkReportRequest(request: ReportRequest): ReportRequest {
  refuseControlCharacters(request);
  const years = (request.profile.revenue_history ?? []).map((r) => r.year);
  const repeated = years.find((year, i) => years.indexOf(year) !== i);
  if (repeated !== undefined) {
    throw badRequest(`Invalid body: profile.revenue_history has year ${repeated} more than once`, Code.VALIDATION_FAILED, {
      details: [{ field: 'profile.revenue_history', message: `year ${repeated} appears more than once` }],
    });
  }
  let locale = request.locale;
  if (locale !== undefined) {
    locale = supportedLocale(locale);
    if (!locale) {
      throw badRequest(`Invalid body: locale "${request.locale}" is not a locale the report can be written for`, Code.VALIDATION_FAILED, {
        details: [{ field: 'locale', message: 'must be a BCP 47 language tag with number and date formats (en-US, en-GB, de-DE...)' }],
      });
    }
  }
  return { ...request, company_name: request.company_name.trim(), ...(locale ? { locale } : {}) };
}
