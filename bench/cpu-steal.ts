import fs from 'node:fs';

/** The `cpu` line of /proc/stat: time spent by all cores, in clock ticks, per state. */
function cpuTicks(): { steal: number; total: number } | undefined {
  try {
    const fields = fs.readFileSync('/proc/stat', 'utf8').split('\n', 1)[0].trim().split(/\s+/).slice(1).map(Number);
    // user nice system idle iowait irq softirq steal (guest time is already inside user)
    return { steal: fields[7] ?? 0, total: fields.slice(0, 8).reduce((sum, n) => sum + n, 0) };
  } catch {
    return undefined; // not Linux
  }
}

/**
 * Share of the machine's CPU time the hypervisor gave to other guests while a run went on. On a
 * shared virtual machine it moves throughput by a third between runs minutes apart; printed beside
 * each figure so a low one can be told from a slow machine. `undefined` where /proc/stat is missing.
 */
export function stealMeter(): () => number | undefined {
  const start = cpuTicks();
  return () => {
    const end = cpuTicks();
    if (!start || !end || end.total === start.total) return undefined;
    return Math.round((100 * (end.steal - start.steal)) / (end.total - start.total));
  };
}

export const formatSteal = (percent: number | undefined) => (percent === undefined ? 'n/a' : `${percent}%`);
