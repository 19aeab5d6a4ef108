// Where edgeplane's proxy spends its CPU: the V8 CPU profiles `node --cpu-prof` writes (one per
// thread), summed by function and by source file, by self time (time in the function itself, not
// in what it calls).
import fs from 'node:fs';
import path from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  /** Microseconds on the monotonic clock, the one process.hrtime reads in any process of this machine. */
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** A stretch of monotonic time, microseconds (process.hrtime.bigint() / 1000). */
export interface Window {
  fromUs: number;
  toUs: number;
}

export interface SelfTime {
  label: string;
  ms: number;
  share: number;
}

export interface ProfileSummary {
  files: string[];
  /** Sampled time, all threads, ms; idle time excluded. */
  totalMs: number;
  byFunction: SelfTime[];
  byFile: SelfTime[];
}

/** A source location short enough for a table: project files relative to the root, packages by name. */
function shortUrl(url: string, root: string): string {
  if (url === '') return '';
  const file = url.startsWith('file://') ? decodeURIComponent(url.slice('file://'.length)) : url;
  const packaged = /node_modules\/((?:@[^/]+\/)?[^/]+)\/(.*)$/.exec(file);
  if (packaged) return `${packaged[1]!}/${packaged[2]!}`;
  return file.startsWith(`${root}/`) ? file.slice(root.length + 1) : file;
}

function top(map: Map<string, number>, total: number, count: number): SelfTime[] {
  return [...map]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([label, us]) => ({ label, ms: us / 1000, share: us / total }));
}

/**
 * Sums every .cpuprofile in `dir`, counting only samples taken within `window` (the measured run:
 * not start-up, module loading or the warm-up); `root` shortens the project's own paths.
 */
export function summariseProfiles(dir: string, root: string, window: Window, count = 25): ProfileSummary {
  const files = fs.readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'));
  const byFunction = new Map<string, number>();
  const byFile = new Map<string, number>();
  let total = 0;
  for (const file of files) {
    const profile = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')) as CpuProfile;
    const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
    let at = profile.startTime;
    profile.samples.forEach((id, i) => {
      const node = nodes.get(id);
      const us = profile.timeDeltas[i] ?? 0;
      at += us;
      if (at < window.fromUs || at > window.toUs) return;
      if (node === undefined || node.callFrame.functionName === '(idle)') return;
      const { functionName, url, lineNumber } = node.callFrame;
      const where = shortUrl(url, root);
      const fn = `${functionName || '(anonymous)'}${where === '' ? '' : ` ${where}:${lineNumber + 1}`}`;
      byFunction.set(fn, (byFunction.get(fn) ?? 0) + us);
      const fileKey = where === '' ? functionName : where;
      byFile.set(fileKey, (byFile.get(fileKey) ?? 0) + us);
      total += us;
    });
  }
  return { files, totalMs: total / 1000, byFunction: top(byFunction, total, count), byFile: top(byFile, total, count) };
}
