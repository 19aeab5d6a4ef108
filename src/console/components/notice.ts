// Short messages after an action ("Zone created", an error that belongs to no field), read out by
// screen readers through a live region.
import { h } from '../dom.ts';

let region: HTMLElement | undefined;
/** Notices shown at once: a burst of actions shows the newest, not a column over the page. */
const maxShown = 3;

export function noticeRegion(): HTMLElement {
  region ??= h('div', { class: 'notices', role: 'status', 'aria-live': 'polite' });
  return region;
}

export function notify(message: string, kind: 'ok' | 'error' = 'ok'): void {
  const item = h('p', { class: `notice notice-${kind}` }, message);
  const shown = noticeRegion();
  shown.append(item);
  while (shown.children.length > maxShown) shown.firstElementChild?.remove();
  setTimeout(() => item.remove(), kind === 'error' ? 10000 : 4000);
}
