// is_redirect_to_https_enabled (service_forcessl): plain HTTP requests are sent to HTTPS, only when
// the resource has a certificate (the provider's rule: without one the redirect would lead nowhere).
// 301 for GET and HEAD, 308 for other methods (which keeps the method and body); Location names the
// proxy's public HTTPS port when it is not 443.
import { pathAndQuery, redirectStatus } from './answers.ts';
import type { StepCompiler } from './step-deps.ts';

export const httpsRedirectStep: StepCompiler = (policy, deps) => {
  if (!policy.settings.is_redirect_to_https_enabled || policy.tls === undefined) return undefined;
  const port = deps.settings.publicHttpsPort === 443 ? '' : `:${deps.settings.publicHttpsPort}`;
  return (exchange) => {
    if (exchange.secure) return undefined;
    const location = `https://${exchange.host}${port}${pathAndQuery(exchange.path, exchange.req.url)}`;
    return { status: redirectStatus(exchange.method), reason: 'redirect', headers: { location } };
  };
};
