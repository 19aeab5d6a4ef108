// Placeholder until the page is written.
import { h } from '../dom.ts';
import type { PageContext } from '../router.ts';
import { recordsSection } from './zone-records.ts';

export function zonePage(ctx: PageContext): HTMLElement {
  return h('section', null, h('h1', null, ctx.params['zone'] ?? ''), recordsSection(ctx, ctx.params['zone'] ?? ''));
}
