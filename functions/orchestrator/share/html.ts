import { createHash } from 'node:crypto';

/** Text for HTML (element content and double-quoted attribute values): every markup character escaped. */
export const html = (text: string): string =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

/**
 * The shared pages' one style sheet: a single column from 390 px phones to desktops, nothing wider
 * than the screen (long words wrap, charts scale with their viewBox, tables scroll inside their own
 * box), colours with at least 4.5:1 contrast.
 */
export const PAGE_CSS = `*,*::before,*::after{box-sizing:border-box}
html{-webkit-text-size-adjust:100%;text-size-adjust:100%}
body{margin:0;background:#fff;color:#1d232b;font-family:system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans","Noto Sans",sans-serif;font-size:1rem;line-height:1.6;overflow-wrap:anywhere}
.page{max-width:54rem;margin:0 auto;padding:1.25rem 1rem 3rem}
.kicker{display:inline-block;margin:0;padding:.35rem .7rem;background:#1f4788;color:#fff;font-size:.8rem;font-weight:700;letter-spacing:.06em;text-transform:uppercase}
h1{margin:.8rem 0 .2rem;color:#1f4788;font-size:clamp(1.6rem,6vw,2.5rem);line-height:1.2}
h2{margin:2.2rem 0 .8rem;padding-bottom:.3rem;border-bottom:1px solid #c9d3e3;color:#1f4788;font-size:1.4rem;line-height:1.3}
.sector{margin:.2rem 0;font-size:1.1rem}
.meta,.note,.reference,figcaption,.label{color:#4f5968}
.meta{margin:.2rem 0 1rem}
.actions{margin:1rem 0 1.5rem}
.button{display:inline-block;padding:.6rem 1.1rem;border-radius:4px;background:#1f4788;color:#fff;font-weight:700;text-decoration:none}
.button:hover{background:#173a6f}
a{color:#1f4788}
a:focus-visible,.scroll:focus-visible{outline:3px solid #b35c00;outline-offset:2px}
.figures{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(100%,10rem),1fr));gap:.5rem;margin:1rem 0;padding:0;list-style:none}
.figures li{padding:.65rem .8rem;background:#eef2f8}
.value{display:block;color:#1f4788;font-size:1.3rem;font-weight:700;line-height:1.3}
.label{display:block;font-size:.85rem}
.notes{margin:1.5rem 0;padding:.2rem 0 .2rem .9rem;border-left:3px solid #1f4788}
.note{margin:.3rem 0;font-size:.9rem}
.toc ol{padding-left:1.4rem}
figure{margin:1.5rem 0}
figcaption{font-size:.9rem}
figcaption strong{color:#1d232b}
.chart svg{display:block;width:100%;height:auto;max-width:100%}
.scroll{max-width:100%;overflow-x:auto}
table{min-width:100%;border-collapse:collapse;font-size:.92rem;font-variant-numeric:tabular-nums}
th,td{padding:.45rem .65rem;text-align:right;white-space:nowrap}
th{background:#1f4788;color:#fff}
th:first-child,td:first-child{text-align:left}
tbody tr:nth-child(even){background:#eef2f8}
.reference{margin-top:2.5rem;font-size:.85rem}
.gone{max-width:36rem;margin:15vh auto;padding:0 1rem}`;

/** The style sheet's hash, the only style the pages' Content-Security-Policy allows. */
const CSS_HASH = createHash('sha256').update(PAGE_CSS, 'utf8').digest('base64');

/**
 * Headers of every shared page and its refusals: never indexed, never cached, no referrer sent on,
 * no script, no frame, nothing loaded from anywhere (the style is inline and hashed; the charts are
 * inline SVG).
 */
export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  'Content-Type': 'text/html; charset=utf-8',
  'Content-Security-Policy': `default-src 'none'; style-src 'sha256-${CSS_HASH}'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
  'X-Robots-Tag': 'noindex, nofollow',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
};

/** A whole page: `lang`, the viewport, robots noindex, the hashed style, `body` as given (already escaped). */
export function htmlDocument(options: { lang: string; title: string; body: string }): string {
  return (
    `<!DOCTYPE html><html lang="${html(options.lang)}"><head><meta charset="utf-8">` +
    '<meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex, nofollow"><meta name="referrer" content="no-referrer">' +
    `<title>${html(options.title)}</title><style>${PAGE_CSS}</style></head><body>${options.body}</body></html>`
  );
}

/** The page an unknown (404) or an expired or revoked (410) link answers. */
export function gonePage(kind: 'unknown' | 'expired' | 'revoked'): string {
  const words = {
    unknown: ['This link does not exist', 'No report is shared at this address. Check that the link was copied whole.'],
    expired: [
      'This link has expired',
      'The report shared at this address is no longer available: its link has expired. Ask the person who sent it for a new link.',
    ],
    revoked: [
      'This link has been revoked',
      'The report shared at this address is no longer available: its owner revoked the link. Ask them for a new link if you still need it.',
    ],
  }[kind];
  return htmlDocument({ lang: 'en', title: words[0], body: `<main class="gone"><h1>${html(words[0])}</h1><p>${html(words[1])}</p></main>` });
}
