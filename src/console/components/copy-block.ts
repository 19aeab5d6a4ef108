// Text to paste elsewhere (a DS record for the registrar, a new token's secret): shown selectable in
// a <pre>, with a Copy button. Where the clipboard is refused (an insecure origin, a denied
// permission) the text is selected instead, so Ctrl+C finishes the job.
import { h } from '../dom.ts';
import { notify } from './notice.ts';

/** `label` names the text for screen readers and in the notice: "DS record" → "DS record copied". */
export function copyBlock(label: string, text: string): HTMLElement {
  const pre = h('pre', { class: 'copy-text', tabindex: 0, 'aria-label': label }, text);
  const copy = async (): Promise<void> => {
    try {
      await navigator.clipboard.writeText(text);
      notify(`${label} copied to the clipboard`);
    } catch {
      const range = document.createRange();
      range.selectNodeContents(pre);
      const selection = window.getSelection();
      selection?.removeAllRanges();
      selection?.addRange(range);
      notify('The browser refused the clipboard: the text is selected, copy it with Ctrl+C', 'error');
    }
  };
  return h('div', { class: 'copy' }, pre, h('button', { type: 'button', class: 'secondary', 'aria-label': `Copy ${label}`, onclick: () => void copy() }, 'Copy'));
}
