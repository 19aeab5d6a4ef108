// What went wrong when the API asked the public DNS through the operator's resolver (the parent DS
// check, the delegation status, the lookup: docs/api/dns.md#lookups-through-the-operators-resolver).
// The resolver is the operator's, so the notice says whose move it is rather than only the status.
import { ApiError, describeError } from '../api.ts';
import { h, replace, type Child } from '../dom.ts';

/**
 * A check through the resolver, run on demand: `button` is disabled and `result` says so while it
 * runs, then shows what `ask` made of the answer, or the notice for its failure.
 */
export function resolverCheck(result: HTMLElement, button: HTMLButtonElement, ask: () => Promise<Child | Child[]>): () => Promise<void> {
  return async () => {
    button.disabled = true;
    result.setAttribute('aria-busy', 'true');
    replace(result, h('p', { class: 'muted' }, 'Asking the public DNS…'));
    try {
      const shown = await ask();
      replace(result, ...(Array.isArray(shown) ? shown : [shown]));
    } catch (error) {
      replace(result, resolverNotice(error));
    } finally {
      button.disabled = false;
      result.removeAttribute('aria-busy');
    }
  };
}

export function resolverNotice(error: unknown): HTMLElement {
  return h('div', { class: 'warning resolver-notice', role: 'alert' }, h('p', null, h('strong', null, headline(error))), h('p', { class: 'muted' }, describeError(error)));
}

function headline(error: unknown): string {
  if (!(error instanceof ApiError)) return 'The check could not be made.';
  if (error.status === 503) return 'This service has no resolver to ask: the operator has not configured one (EDGEPLANE_RESOLVER).';
  if (error.status === 504) return 'The resolver did not answer in time. Try again in a moment.';
  if (error.status === 502) return 'The resolver failed to answer. Try again later; if it persists, tell the operator.';
  if (error.status === 429) return 'Too many lookups are running on this service right now.';
  return 'The check could not be made.';
}
