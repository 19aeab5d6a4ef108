// The checks and rewrites of a resource's policy, in order (placeholder until the steps land).
import type { Step } from '../exchange.ts';
import type { ResourcePolicy } from '../policy.ts';
import type { ThreadDeps } from '../thread-deps.ts';

export function policySteps(_policy: ResourcePolicy, _deps: ThreadDeps): { guards: Step[]; rewrites: Step[] } {
  return { guards: [], rewrites: [] };
}
