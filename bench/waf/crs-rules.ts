// The paranoia level of each CRS rule, read from the rule files the reference runs with: a corpus test
// of a rule above the configured level is one ModSecurity is not meant to catch, which the figures
// show apart (the target is judged on every test all the same).
import fs from 'node:fs';
import path from 'node:path';

/** Rule id → paranoia level (the `paranoia-level/N` tag; rules without one run at every level). */
export function paranoiaLevels(rulesDir: string): Map<string, number> {
  const levels = new Map<string, number>();
  for (const file of fs.readdirSync(rulesDir).filter((f) => f.endsWith('.conf'))) {
    // One directive per chunk: a rule and its chained rules start with SecRule or SecAction at a line's start.
    for (const directive of fs.readFileSync(path.join(rulesDir, file), 'utf8').split(/^(?=Sec(?:Rule|Action)\s)/m)) {
      const id = /\bid:'?(\d+)/.exec(directive)?.[1];
      if (id === undefined) continue;
      levels.set(id, Number(/paranoia-level\/(\d)/.exec(directive)?.[1] ?? 1));
    }
  }
  return levels;
}
