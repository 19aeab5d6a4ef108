// Which requests a rate rule covers: its method (`*` any; GET also covers HEAD, which asks the origin
// for the same work) and its path pattern (path-pattern.ts), matched against the normalised path.
import type { RatePolicy } from '../policy.ts';
import { compilePathPattern } from './path-pattern.ts';

export type RuleMatcher = (method: string, path: string) => boolean;

export function compileRuleMatch(rule: RatePolicy): RuleMatcher {
  const path = compilePathPattern(rule.path);
  const method = rule.method.toUpperCase();
  if (method === '*') return (_, sent) => path(sent);
  if (method === 'GET') return (sent, sentPath) => (sent === 'GET' || sent === 'HEAD') && path(sentPath);
  return (sent, sentPath) => sent === method && path(sentPath);
}
