import type Stripe from 'stripe';
import { money } from './account';

/**
 * The small pages the local server serves in place of Stripe's hosted ones (a hosted invoice, its
 * PDF, the Customer Portal): plain HTML with every value escaped, and a one-page PDF written by
 * hand. No page needs an API key: as on Stripe, the unguessable id in the address is the key.
 */

export interface Page {
  status: number;
  headers: Record<string, string>;
  body: string | Buffer;
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const escapeHtml = (value: unknown) => String(value ?? '').replace(/[&<>"']/g, (c) => ESCAPES[c]);

export const date = (seconds: number | null | undefined) =>
  seconds ? new Date(seconds * 1000).toLocaleDateString('en-GB', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' }) : '';

export function html(title: string, body: string, status = 200): Page {
  const text = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:44rem;margin:2rem auto;padding:0 1rem}table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #ddd;padding:.4rem;text-align:left}.note{color:#666}</style>
</head><body>${body}</body></html>`;
  return {
    status,
    headers: { 'Content-Type': 'text/html; charset=utf-8', 'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'" },
    body: text,
  };
}

export const notFound = () => html('Not found', '<h1>Not found</h1><p>This page does not exist, or no longer does.</p>', 404);

export function invoiceRows(invoices: Stripe.Invoice[]): string {
  if (!invoices.length) return '<p class="note">No invoices yet.</p>';
  const rows = invoices.map(
    (i) =>
      `<tr><td>${escapeHtml(i.number ?? 'draft')}</td><td>${escapeHtml(date(i.created))}</td><td>${escapeHtml(money(i.total, i.currency))}</td><td>${escapeHtml(i.status)}</td>` +
      `<td>${i.hosted_invoice_url ? `<a href="${escapeHtml(i.hosted_invoice_url)}">View</a> · <a href="${escapeHtml(i.invoice_pdf)}">PDF</a>` : ''}</td></tr>`,
  );
  return `<table><tr><th>Number</th><th>Date</th><th>Amount</th><th>Status</th><th></th></tr>${rows.join('')}</table>`;
}

export function invoicePage(invoice: Stripe.Invoice): Page {
  const lines = invoice.lines.data
    .map(
      (l) =>
        `<tr><td>${escapeHtml(l.description)}</td><td>${escapeHtml(`${date(l.period.start)} – ${date(l.period.end)}`)}</td><td>${escapeHtml(money(l.amount, l.currency))}</td></tr>`,
    )
    .join('');
  return html(
    `Invoice ${invoice.number ?? invoice.id}`,
    `<h1>Invoice ${escapeHtml(invoice.number)}</h1>
<p>${escapeHtml(invoice.account_name)} · billed to ${escapeHtml(invoice.customer_email ?? invoice.customer_name ?? invoice.customer)}</p>
<p>Status: <strong>${escapeHtml(invoice.status)}</strong> · issued ${escapeHtml(date(invoice.status_transitions.finalized_at))}${invoice.status_transitions.paid_at ? ` · paid ${escapeHtml(date(invoice.status_transitions.paid_at))}` : ''}</p>
<table><tr><th>Description</th><th>Period</th><th>Amount</th></tr>${lines}</table>
<p>Total ${escapeHtml(money(invoice.total, invoice.currency))} · amount due ${escapeHtml(money(invoice.amount_due, invoice.currency))} · paid ${escapeHtml(money(invoice.amount_paid, invoice.currency))}</p>
<p><a href="${escapeHtml(invoice.invoice_pdf)}">Download PDF</a></p>`,
  );
}

/** The few typographic characters of the pages, written in ASCII for the PDF's standard font. */
const ASCII: Record<string, string> = { '×': 'x', '–': '-', '—': '-', '’': "'", '·': '-' };

/** A one-page A4 PDF of text lines in Helvetica (ASCII: `×` is written `x`, anything unknown `?`), with a correct cross-reference table. */
export function textPdf(lines: string[]): Buffer {
  const escapePdf = (s: string) => s.replace(/[^\x20-\x7e]/g, (c) => ASCII[c] ?? '?').replace(/[\\()]/g, (c) => `\\${c}`);
  const content = ['BT', '/F1 12 Tf', '16 TL', '56 780 Td', ...lines.map((l) => `(${escapePdf(l)}) '`), 'ET'].join('\n');
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>',
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
    `<< /Length ${Buffer.byteLength(content)} >>\nstream\n${content}\nendstream`,
  ];
  let pdf = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(Buffer.byteLength(pdf));
    pdf += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = Buffer.byteLength(pdf);
  pdf += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  pdf += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(pdf, 'latin1');
}

export function invoicePdf(invoice: Stripe.Invoice): Page {
  const lines = [
    `Invoice ${invoice.number ?? invoice.id}`,
    `${invoice.account_name ?? ''}`,
    `Billed to ${invoice.customer_email ?? invoice.customer_name ?? String(invoice.customer)}`,
    `Issued ${date(invoice.status_transitions.finalized_at)}  Status ${invoice.status}`,
    '',
    ...invoice.lines.data.map((l) => `${l.description ?? ''}  ${money(l.amount, l.currency)}`),
    '',
    `Total ${money(invoice.total, invoice.currency)}  Amount due ${money(invoice.amount_due, invoice.currency)}  Paid ${money(invoice.amount_paid, invoice.currency)}`,
  ];
  return {
    status: 200,
    headers: { 'Content-Type': 'application/pdf', 'Content-Disposition': `inline; filename="invoice-${invoice.number ?? invoice.id}.pdf"` },
    body: textPdf(lines),
  };
}
