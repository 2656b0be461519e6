import { badRequest, Code } from '../../../shared/http/errors';
import type { Infer } from '../../../shared/http/schemas';
import type { REPORT_REQUEST } from '../schemas';
import { supportedLocale } from './words';

/** A report request as its schema (schemas.ts, REPORT_REQUEST) checks it; `locale` (BCP 47, e.g. en-GB, de-DE, ja-JP; en-US when absent) chooses the report's language (i18n/catalogue.ts) and how it writes numbers and dates. */
export type ReportRequest = Infer<typeof REPORT_REQUEST>;
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
