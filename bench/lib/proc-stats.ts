import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second of /proc's CPU times (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;

export interface Memory {
  /** Resident set size now (VmRSS), MB. */
  rssMb: number;
  /** The peak resident set size so far (VmHWM), MB. */
  peakMb: number;
}

/** A process's resident memory, from /proc/<pid>/status. */
export function memoryOf(pid: number): Memory {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(status)?.[1]);
  return { rssMb: Math.round(kb('VmRSS') / 1024), peakMb: Math.round(kb('VmHWM') / 1024) };
}

/** `/proc/<pid>/stat` after the command name (which may hold spaces): field 3 onwards; null once gone. */
function statFields(pid: number): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/** CPU seconds (user + system, all threads) a process has used so far; 0 once it is gone. */
export function cpuSecondsOf(pid: number): number {
  const fields = statFields(pid);
  return fields ? (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND : 0;
}

/** A process and its children (one level: a postmaster's backends and workers). */
export function withChildren(pid: number): number[] {
  const children = readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .map(Number)
    .filter((child) => Number(statFields(child)?.[1]) === pid);
  return [pid, ...children];
}

/** The PostgreSQL server listening on `port` of this machine: its postmaster's pid (its command line names the port). */
export function postmasterOn(port: number): number | null {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let args: string[];
    try {
      args = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
    } catch {
      continue;
    }
    if (args[0]?.endsWith('/postgres') && args[args.indexOf('-p') + 1] === String(port)) return Number(entry);
  }
  return null;
}

/** Busy and total CPU time of the whole machine so far (every process, this run's or not), in seconds. */
export function machineCpu(): { busy: number; total: number } {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '';
  const ticks = line.split(/\s+/).slice(1).map(Number);
  const idle = (ticks[3] ?? 0) + (ticks[4] ?? 0); // idle + iowait
  const total = ticks.slice(0, 8).reduce((sum, value) => sum + value, 0); // up to steal; guest is inside user
  return { busy: (total - idle) / TICKS_PER_SECOND, total: total / TICKS_PER_SECOND };
}

/** Named groups of processes whose CPU time is read together (e.g. "postgres": a postmaster and its children). */
export type ProcessGroups = Record<string, number[]>;

export interface CpuReading {
  perPid: Map<number, number>;
  machine: { busy: number; total: number };
}

export function readCpu(groups: ProcessGroups): CpuReading {
  const perPid = new Map<number, number>();
  for (const pid of Object.values(groups).flat()) perPid.set(pid, cpuSecondsOf(pid));
  return { perPid, machine: machineCpu() };
}

/**
 * CPU seconds each group used between two readings (a process that ended meanwhile counts for nothing), and
 * how busy the whole machine was, in percent of all its cores.
 */
export function cpuBetween(
  groups: ProcessGroups,
  before: CpuReading,
  after: CpuReading,
): { seconds: Record<string, number>; machineBusyPercent: number } {
  const spent = (pid: number) => {
    const end = after.perPid.get(pid) ?? 0;
    return end === 0 ? 0 : end - (before.perPid.get(pid) ?? 0);
  };
  const seconds = Object.fromEntries(
    Object.entries(groups).map(([name, pids]) => [
      name,
      Math.round(pids.reduce((sum, pid) => sum + spent(pid), 0) * 100) / 100,
    ]),
  );
  const busy = after.machine.busy - before.machine.busy;
  const total = after.machine.total - before.machine.total;
  return { seconds, machineBusyPercent: Math.round((100 * busy) / (total || 1)) };
}
