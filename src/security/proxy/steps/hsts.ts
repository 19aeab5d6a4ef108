// service_hsts 1: Strict-Transport-Security on every answer over HTTPS, the proxy's own refusals
// included (the step runs before the checks). Browsers ignore it over plain HTTP, so it is not sent there.
import type { StepCompiler } from './step-deps.ts';

const oneYear = 'max-age=31536000';

export const hstsStep: StepCompiler = (policy) => {
  if (policy.settings.service_hsts !== 1) return undefined;
  return (exchange) => {
    if (exchange.secure) exchange.answerHeaders['strict-transport-security'] = oneYear;
    return undefined;
  };
};
