// Server CPU time from /proc. On a 2-core box the load generator competes with the server for CPU,
// so requests/s mostly says who got the cores; CPU seconds per completed operation does not.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';

/** Clock ticks per second of /proc/<pid>/stat times (100 on every Linux we run on; asked anyway). */
const clockTicks = (() => {
  try {
    const value = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
    return Number.isInteger(value) && value > 0 ? value : 100;
  } catch {
    return 100;
  }
})();

interface Stat {
  ppid: number;
  user: number;
  system: number;
}

function readStat(pid: number): Stat | undefined {
  let text: string;
  try {
    text = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined; // exited between listing and reading
  }
  // The command name (field 2) is in parentheses and may contain spaces: split after the last ')'.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  // fields[0] is field 3 (state): ppid is field 4, utime 14, stime 15.
  return { ppid: Number(fields[1]), user: Number(fields[11]), system: Number(fields[12]) };
}

export interface CpuTimes {
  /** utime: in the process's own code. */
  userS: number;
  /** stime: in the kernel on its behalf (system calls, the network stack). */
  systemS: number;
}

/**
 * utime and stime in seconds of `pid` and all its live descendants (threads are included in a
 * process's figures). Descendants count for servers that fork workers (nginx).
 */
export function cpuTimes(pid: number): CpuTimes {
  const stats = new Map<number, Stat>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readStat(Number(entry));
    if (stat) stats.set(Number(entry), stat);
  }
  const tree = new Set<number>([pid]);
  // Parents can have larger pids than children after pid wrap-around, so iterate to a fixed point.
  for (let grew = true; grew; ) {
    grew = false;
    for (const [child, stat] of stats) {
      if (!tree.has(child) && tree.has(stat.ppid)) {
        tree.add(child);
        grew = true;
      }
    }
  }
  let user = 0;
  let system = 0;
  for (const member of tree) {
    user += stats.get(member)?.user ?? 0;
    system += stats.get(member)?.system ?? 0;
  }
  return { userS: user / clockTicks, systemS: system / clockTicks };
}

/** utime+stime in seconds of `pid` and all its live descendants. */
export function cpuSeconds(pid: number): number {
  const { userS, systemS } = cpuTimes(pid);
  return userS + systemS;
}

/** Listening TCP ports of a process, from its socket inodes and /proc/net/tcp{,6}. */
export function listeningPorts(pid: number): number[] {
  const inodes = new Set<string>();
  for (const fd of fs.readdirSync(`/proc/${pid}/fd`)) {
    try {
      const match = /^socket:\[(\d+)\]$/.exec(fs.readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (match?.[1] !== undefined) inodes.add(match[1]);
    } catch {
      // fd closed while listing
    }
  }
  const ports: number[] = [];
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = fs.readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      // cols: sl local_address rem_address st ... inode (index 9); state 0A is LISTEN.
      const local = cols[1];
      if (cols[3] !== '0A' || local === undefined || cols[9] === undefined || !inodes.has(cols[9])) continue;
      ports.push(parseInt(local.slice(local.indexOf(':') + 1), 16));
    }
  }
  return ports;
}
