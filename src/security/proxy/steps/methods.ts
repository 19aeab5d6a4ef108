// service_methods: the request methods a resource accepts, as a list of method names separated by
// commas or spaces, any case (`GET, POST`); GET brings HEAD along, as in nginx's limit_except. Other
// methods get 405 with `Allow`. An empty value, or one naming no HTTP method (the contract's samples
// send integers such as 0), restricts nothing: the field stays what it was, data for API clients.
import { http } from '../../../net/node-http.ts';
import { sharedAnswer } from './answers.ts';
import type { StepCompiler } from './step-deps.ts';

const known = new Set(http.METHODS);

export const methodsStep: StepCompiler = (policy) => {
  const allowed = new Set(policy.settings.service_methods.toUpperCase().split(/[\s,]+/).filter((name) => known.has(name)));
  if (allowed.size === 0) return undefined;
  if (allowed.has('GET')) allowed.add('HEAD');
  const refused = sharedAnswer({ status: 405, reason: 'method', headers: { allow: [...allowed].join(', ') }, body: 'Method Not Allowed\n' });
  return (exchange) => (allowed.has(exchange.method) ? undefined : refused);
};
