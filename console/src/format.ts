/** Every time is shown in the browser's own time zone, with the zone named once in the page footer. */
export const browserTimeZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';

const dateTime = new Intl.DateTimeFormat(undefined, { year: 'numeric', month: 'short', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' });
const timeOnly = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' });
const timeMs = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit', fractionalSecondDigits: 3 });
const number = new Intl.NumberFormat();

export const formatDateTime = (iso: string | null | undefined) => (iso ? dateTime.format(new Date(iso)) : '—');
export const formatHour = (iso: string) => timeOnly.format(new Date(iso));
/** A step's time to the millisecond (steps of one run are often within one second). */
export const formatTime = (value: string | number) => timeMs.format(new Date(value));
export const formatNumber = (n: number | null | undefined) => (n === null || n === undefined ? '—' : number.format(n));

/** 850 ms, 12.4 s, 3 min 20 s, 2 h 5 min. */
export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '—';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(1)} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${Math.round(s % 60)} s`;
  return `${Math.floor(m / 60)} h ${m % 60} min`;
}

export const formatMoney = (amount: number, currency: string) =>
  new Intl.NumberFormat(undefined, { style: 'currency', currency: currency.toUpperCase() }).format(amount / 100);

/** "1 execution", "3 executions". */
export const count = (n: number, noun: string) => `${number.format(n)} ${noun}${n === 1 ? '' : 's'}`;
