// is_waf_enabled: the request goes through the thread's WAF (waf/waf.ts), the Core Rule Set read
// when the first resource with it on is compiled. Without the rules (EDGEPLANE_WAF_CRS_DIR missing
// or unreadable) such a resource fails to compile and is not served: never unprotected in silence.
import type { StepCompiler } from './step-deps.ts';

export const wafStep: StepCompiler = (policy, deps) => {
  if (!policy.settings.is_waf_enabled) return undefined;
  const waf = deps.waf();
  if (waf === undefined) return undefined;
  return (exchange) => waf.check(exchange);
};
