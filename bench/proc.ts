import fs from 'node:fs';

/** Clock ticks per second of /proc/<pid>/stat's CPU times (USER_HZ, 100 on Linux everywhere in practice). */
const TICKS_PER_SECOND = 100;

/**
 * CPU time (user + system, in ms) a process has used so far, all its threads included; undefined
 * where /proc is missing or the process is gone. Lets a bench say which process's CPU grows.
 */
export function processCpuMs(pid: number, statFile = `/proc/${pid}/stat`): number | undefined {
  try {
    const stat = fs.readFileSync(statFile, 'utf8');
    // Fields after the command name (which may hold spaces, so split after its closing parenthesis).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

/** Resident memory of a process in MB, from /proc/<pid>/status; undefined where unavailable. */
export function processRssMb(pid: number): number | undefined {
  try {
    const match = /^VmRSS:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Math.round(Number(match[1]) / 1024) : undefined;
  } catch {
    return undefined;
  }
}

/** CPU ms a set of processes use between the meter's start and each call, per process name. */
export function cpuMeter(pids: Record<string, number | undefined>): () => Record<string, number | undefined> {
  const start = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, pid === undefined ? undefined : processCpuMs(pid)]));
  return () =>
    Object.fromEntries(
      Object.entries(pids).map(([name, pid]) => {
        const now = pid === undefined ? undefined : processCpuMs(pid);
        const before = start[name];
        return [name, now === undefined || before === undefined ? undefined : now - before];
      }),
    );
}

/** CPU ms the whole machine spent busy (user, nice, system, irq, softirq; not idle, iowait or steal) so far, from /proc/stat. */
export function machineBusyMs(): number | undefined {
  try {
    const [user, nice, system, , , irq, softirq] = fs.readFileSync('/proc/stat', 'utf8').split('\n', 1)[0].trim().split(/\s+/).slice(1).map(Number);
    return ((user + nice + system + irq + softirq) * 1000) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

/** CPU time (user + system, in ms) each thread of a process has used so far, by thread id; empty where /proc is missing. */
export function threadCpuMs(pid: number): Map<number, number> {
  const out = new Map<number, number>();
  try {
    for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
      const ms = processCpuMs(Number(tid), `/proc/${pid}/task/${tid}/stat`);
      if (ms !== undefined) out.set(Number(tid), ms);
    }
  } catch {
    // not Linux, or the process is gone
  }
  return out;
}
