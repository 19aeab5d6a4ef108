// The zone as a BIND zone file. Import creates, in one change, every RRset the file has that the zone
// lacks, and reports each line it skipped and why (the SOA, the apex NS, existing RRsets, bad
// content), so that is what the page shows. Export downloads <zone>.zone and shows the text too.
import type { Api } from '../api.ts';
import { h, replace } from '../dom.ts';
import { field } from '../components/field.ts';
import { formError, onSubmit, run } from '../components/form.ts';
import { notify } from '../components/notice.ts';
import { readFileInto } from '../components/file-text.ts';
import { zonePath, type ImportResult, type Zone } from './model.ts';

export function zoneFileSection(api: Api, zone: Zone, options: { canWrite: boolean; onImported: () => void }): HTMLElement {
  return h('div', { class: 'zone-file' }, options.canWrite ? importForm(api, zone, options.onImported) : null, exportCard(api, zone));
}

function importForm(api: Api, zone: Zone, onImported: () => void): HTMLElement {
  const content = h('textarea', { name: 'content', rows: 10, spellcheck: 'false', placeholder: `$ORIGIN ${zone.name}.\nwww 300 IN A 192.0.2.1` });
  const file = h('input', { type: 'file', name: 'file', accept: '.zone,.txt,.db,text/plain' });
  const result = h('div', { class: 'import-result' });
  readFileInto(file, content);
  const form = h(
    'form',
    { class: 'card', 'aria-labelledby': 'zone-import-title', 'data-write': true },
    h('h2', { id: 'zone-import-title' }, 'Import a zone file'),
    h('p', { class: 'muted' }, 'Record sets the zone does not have yet are created; the SOA, the apex NS and existing record sets are skipped.'),
    field({ label: 'Zone file', path: 'content', control: content }),
    field({ label: 'Or read it from a file', path: 'file', control: file }),
    formError(),
    h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Import')),
    result,
  );
  onSubmit(form, async () => {
    replace(result);
    if (content.value.trim() === '') throw new Error('Paste a zone file or choose one first.');
    const answer = await api.post<ImportResult>(zonePath(zone.name, '/import'), { content: content.value });
    notify(`Imported ${answer.created.length} record set${answer.created.length === 1 ? '' : 's'}, skipped ${answer.skipped.length} line${answer.skipped.length === 1 ? '' : 's'}`);
    replace(result, importReport(answer));
    onImported();
  });
  return form;
}

function importReport(answer: ImportResult): HTMLElement[] {
  return [
    h('h3', null, `Created (${answer.created.length})`),
    answer.created.length === 0
      ? h('p', { class: 'muted' }, 'Nothing new.')
      : h(
          'div',
          { class: 'table-wrap' },
          h(
            'table',
            { 'aria-label': 'Created record sets' },
            h('thead', null, h('tr', null, h('th', { scope: 'col' }, 'Name'), h('th', { scope: 'col' }, 'Type'), h('th', { scope: 'col' }, 'Records'))),
            h('tbody', null, answer.created.map((c) => h('tr', null, h('td', null, c.name), h('td', null, c.type), h('td', null, c.records)))),
          ),
        ),
    h('h3', null, `Skipped (${answer.skipped.length})`),
    answer.skipped.length === 0
      ? h('p', { class: 'muted' }, 'Nothing skipped.')
      : h(
          'div',
          { class: 'table-wrap' },
          h(
            'table',
            { 'aria-label': 'Skipped lines' },
            h('thead', null, h('tr', null, h('th', { scope: 'col' }, 'Line'), h('th', { scope: 'col' }, 'Name'), h('th', { scope: 'col' }, 'Type'), h('th', { scope: 'col' }, 'Reason'))),
            h('tbody', null, answer.skipped.map((s) => h('tr', null, h('td', null, s.line), h('td', null, s.name ?? ''), h('td', null, s.type ?? ''), h('td', { class: 'content' }, s.reason)))),
          ),
        ),
  ];
}

function exportCard(api: Api, zone: Zone): HTMLElement {
  const shown = h('div', { class: 'export-result' });
  const card = h(
    'section',
    { class: 'card', 'aria-labelledby': 'zone-export-title' },
    h('h2', { id: 'zone-export-title' }, 'Export'),
    h('p', { class: 'muted' }, `Downloads ${zone.name}.zone: the SOA, the apex NS and every enabled record (pickers and meta have no zone-file form).`),
    formError(),
    h('div', { class: 'actions' }, h('button', { type: 'button', class: 'secondary', onclick: () => void run(card, exportZone) }, 'Export')),
    shown,
  );
  const exportZone = async (): Promise<void> => {
    const { raw_zone: text } = await api.get<{ raw_zone: string }>(zonePath(zone.name, '/export'));
    download(`${zone.name}.zone`, text);
    replace(shown, h('pre', { class: 'zone-text', tabindex: 0, 'aria-label': `Zone file of ${zone.name}` }, text));
  };
  return card;
}

function download(filename: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'text/dns' }));
  const link = h('a', { href: url, download: filename, class: 'zone-download-link' });
  document.body.append(link);
  link.click();
  link.remove();
  // The click has started the download; the URL only has to outlive this turn of the event loop.
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
