// Placeholder until the records section is written.
import { h } from '../dom.ts';
import type { PageContext } from '../router.ts';

/** The zone page's RRset table; `zone` is the zone's name. */
export function recordsSection(_ctx: PageContext, zone: string): HTMLElement {
  return h('section', null, h('h2', null, `Records of ${zone}`));
}
