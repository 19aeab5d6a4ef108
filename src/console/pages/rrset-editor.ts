// Placeholder until the page is written.
import { h } from '../dom.ts';
import type { PageContext } from '../router.ts';

export function rrsetEditorPage(_ctx: PageContext): HTMLElement {
  return h('section', null, h('h1', null, 'rrset-editor'));
}
