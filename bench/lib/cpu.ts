import { readdirSync, readFileSync } from 'node:fs';

/** CPU seconds (user + system) used so far by every process on the machine, summed per command name. */
export function cpuByCommand(): Map<string, number> {
  const totals = new Map<string, number>();
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    // "pid (comm) state ppid ...": comm may contain spaces, so split after its closing parenthesis.
    const close = stat.lastIndexOf(')');
    const comm = stat.slice(stat.indexOf('(') + 1, close);
    const fields = stat.slice(close + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]); // utime + stime (fields 14 and 15)
    // Node names its main thread "MainThread": tell the Node processes apart by pid.
    const name =
      comm === 'MainThread' ? (Number(pid) === process.pid ? 'node (bench)' : `node ${pid}`) : comm;
    totals.set(name, (totals.get(name) ?? 0) + ticks / 100);
  }
  return totals;
}

/** The CPU seconds each command used between two `cpuByCommand()` readings, biggest first. */
export function cpuSpent(before: Map<string, number>, after: Map<string, number>): Record<string, number> {
  return Object.fromEntries(
    [...after]
      .map(([comm, seconds]) => [comm, Math.round((seconds - (before.get(comm) ?? 0)) * 100) / 100] as const)
      .filter(([, seconds]) => seconds >= 0.05)
      .sort((a, b) => b[1] - a[1]),
  );
}
