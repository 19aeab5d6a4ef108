// service_wwwredir 1: requests for www.X go to X (301 for GET and HEAD, 308 for other methods),
// keeping the scheme, the port the client used, the path and the query. Only when X is also one of
// the resource's names: a redirect must not send clients to a host the resource does not hold.
import { pathAndQuery, redirectStatus } from './answers.ts';
import type { StepCompiler } from './step-deps.ts';

export const wwwRedirectStep: StepCompiler = (policy) => {
  if (policy.settings.service_wwwredir !== 1) return undefined;
  const targets = new Map<string, string>();
  for (const host of policy.hosts) if (host.startsWith('www.') && policy.hosts.includes(host.slice(4))) targets.set(host, host.slice(4));
  if (targets.size === 0) return undefined;
  return (exchange) => {
    const target = targets.get(exchange.host);
    if (target === undefined) return undefined;
    const authority = exchange.req.headers[':authority'] ?? exchange.req.headers.host;
    const location = `${exchange.secure ? 'https' : 'http'}://${target}${portOf(authority)}${pathAndQuery(exchange.path, exchange.req.url)}`;
    return { status: redirectStatus(exchange.method), reason: 'redirect', headers: { location } };
  };
};

/** `:8080` from `www.example.com:8080` (or `[::1]:8080`); '' when there is none. */
function portOf(authority: string | string[] | undefined): string {
  if (typeof authority !== 'string') return '';
  const colon = authority.lastIndexOf(':');
  if (colon < 0 || colon < authority.lastIndexOf(']')) return '';
  const port = authority.slice(colon + 1);
  return /^\d{1,5}$/.test(port) ? `:${port}` : '';
}
