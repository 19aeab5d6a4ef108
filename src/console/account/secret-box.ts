// A new token's secret, shown once: the API keeps only its hash, so this box is the only place it
// ever appears. It lives in the page's memory alone — never in storage or the address — and is gone
// when dismissed or when the page is left or reloaded.
import { h } from '../dom.ts';
import { copyBlock } from '../components/copy-block.ts';
import type { CreatedToken } from './model.ts';

export function secretBox(created: CreatedToken, onDismiss: () => void): HTMLElement {
  const box = h(
    'div',
    { class: 'secret', role: 'region', 'aria-labelledby': 'new-token-title', tabindex: -1 },
    h('h3', { id: 'new-token-title' }, `Token “${created.name}” created`),
    h('p', null, h('strong', null, 'Copy it now: you will not see it again.'), ' edgeplane keeps only a hash of it. If it is lost, revoke it and create another.'),
    copyBlock(`Secret of the token ${created.name}`, created.token),
    h('p', { class: 'muted' }, 'Send it with every API request as the header ', h('code', null, 'Authorization: APIKey <token>'), '.'),
    h('div', { class: 'actions' }, h('button', { type: 'button', class: 'secondary', onclick: onDismiss }, 'I have copied it')),
  );
  return box;
}
