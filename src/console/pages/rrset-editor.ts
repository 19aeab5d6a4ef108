// One RRset: create one (#/zones/:zone/rrsets/new) or change one (#/zones/:zone/rrsets/:name/:type):
// its TTL, its records with the type's fields, enabled or not, and their meta, the picker chain and
// the health check, and the check's failover log. Read-only users see the same form, disabled,
// without the buttons that write.
import '../styles/rrsets.css';
import { ApiError, segment } from '../api.ts';
import { h } from '../dom.ts';
import { confirmAction } from '../components/dialog.ts';
import { field, input, select } from '../components/field.ts';
import { formError, onSubmit, run } from '../components/form.ts';
import { notify } from '../components/notice.ts';
import { href, type PageContext } from '../router.ts';
import { placeErrors } from '../rrsets/errors.ts';
import { failoverEditor } from '../rrsets/failover-editor.ts';
import { failoverLog } from '../rrsets/failover-log.ts';
import { pickersOf, relativeName, rrsetPath, type Meta, type Rrset, type RrsetBody } from '../rrsets/model.ts';
import { pickersEditor } from '../rrsets/pickers-editor.ts';
import { recordEditor, type RecordEditor } from '../rrsets/record-editor.ts';
import { typeNames } from '../rrsets/record-types.ts';

export async function rrsetEditorPage(ctx: PageContext): Promise<HTMLElement> {
  const zone = ctx.params['zone'] ?? '';
  const existing = ctx.params['name'] === undefined ? undefined : await ctx.api.get<Rrset>(rrsetPath(zone, ctx.params['name'], ctx.params['type'] ?? ''));
  const readOnly = !ctx.session.canWrite();
  const zoneRoute = `/zones/${segment(zone)}`;
  // #/zones/<zone>/rrsets/new?type=MX starts with that type.
  const preset = ctx.query.get('type')?.toUpperCase() ?? '';
  let type = existing?.type ?? (typeNames.includes(preset) ? preset : 'A');

  // Name and type name the RRset: fixed once it exists (a rename is a new RRset and a delete).
  const name = input({ value: existing === undefined ? '' : relativeName(existing.name, zone), placeholder: 'www', autocomplete: 'off', spellcheck: 'false', readonly: existing !== undefined });
  const typeSelect = select(
    typeNames.map((t): [string, string] => [t, t]),
    type,
    existing === undefined ? {} : { disabled: true },
  );
  const ttl = input({ type: 'number', min: 0, max: 2147483647, value: String(existing?.ttl ?? 300), inputmode: 'numeric' });

  const records: RecordEditor[] = [];
  const recordList = h('div', { class: 'record-list' });
  const addRecord = (record: Rrset['resource_records'][number] | undefined): RecordEditor => {
    const editor = recordEditor({ type, index: records.length, record, readOnly, onRemove: removeRecord });
    records.push(editor);
    recordList.append(editor.element);
    return editor;
  };
  const removeRecord = (editor: RecordEditor): void => {
    const at = records.indexOf(editor);
    records.splice(at, 1);
    editor.element.remove();
    records.forEach((r, i) => r.setIndex(i));
    (records[Math.min(at, records.length - 1)]?.firstControl() ?? addButton ?? recordList).focus();
  };
  for (const record of existing?.resource_records ?? [undefined]) addRecord(record);
  const addButton = readOnly
    ? undefined
    : h(
        'button',
        {
          type: 'button',
          class: 'secondary',
          'data-write': true,
          onclick: () => addRecord(undefined).firstControl()?.focus(),
        },
        'Add record',
      );
  typeSelect.addEventListener('change', () => {
    type = typeSelect.value;
    for (const record of records) record.setType(type);
  });

  const pickers = pickersEditor(existing === undefined ? [] : pickersOf(existing), readOnly);
  const failover = failoverEditor(existing?.meta ?? {});

  const title = existing === undefined ? `New record set in ${zone}` : `${existing.name} ${existing.type}`;
  const form = h(
    'form',
    { class: 'rrset-editor', novalidate: true },
    // A disabled fieldset disables every control inside it: the read-only view.
    h(
      'fieldset',
      { class: 'rrset-all', disabled: readOnly },
      h(
        'div',
        { class: 'card' },
        h('h2', null, 'Record set'),
        h(
          'div',
          { class: 'form-grid' },
          field({ label: 'Name', path: 'name', control: name, hint: existing === undefined ? `Relative to ${zone} (www), @ for ${zone} itself, or fully qualified; *.name for a wildcard` : `Fully qualified: ${existing.name}` }),
          field({ label: 'Type', path: 'type', control: typeSelect }),
          field({ label: 'TTL (seconds)', path: 'ttl', control: ttl }),
        ),
      ),
      h(
        'div',
        { class: 'card' },
        h('h2', null, 'Records'),
        h('p', { class: 'field-error', 'data-error-for': 'resource_records' }),
        recordList,
        addButton === undefined ? null : h('div', { class: 'actions' }, addButton),
      ),
      h(
        'div',
        { class: 'card' },
        h('h2', null, 'Pickers'),
        h('p', { class: 'muted' }, 'Each query gets the records the chain picks, in order, for the requester (the EDNS Client Subnet, else the resolver\'s address).'),
        pickers.element,
      ),
      h('div', { class: 'card' }, h('h2', null, 'Health check'), failover.element, h('p', { class: 'field-error', 'data-error-for': 'meta' })),
    ),
    formError(),
    h(
      'div',
      { class: 'actions' },
      readOnly ? null : h('button', { type: 'submit', 'data-write': true }, existing === undefined ? 'Create record set' : 'Save record set'),
      h('a', { href: href(zoneRoute) }, readOnly ? `Back to ${zone}` : 'Cancel'),
      readOnly || existing === undefined || (existing.type === 'NS' && existing.name === zone)
        ? null
        : h('button', { type: 'button', class: 'danger', 'data-write': true, onclick: () => void remove(existing) }, 'Delete record set'),
    ),
  );

  const body = (): RrsetBody => {
    const meta: Meta = { ...(existing?.meta ?? {}) };
    const check = failover.value();
    if (check === undefined) delete meta['failover'];
    else meta['failover'] = check;
    const ttlText = ttl.value.trim();
    return {
      ...(ttlText === '' ? {} : { ttl: /^\d+$/.test(ttlText) ? Number(ttlText) : ttlText }),
      meta,
      pickers: pickers.value(),
      resource_records: records.map((r) => r.value()),
    };
  };

  onSubmit(form, async () => {
    const owner = existing?.name ?? (name.value.trim() === '' ? '@' : name.value.trim());
    let saved: Rrset;
    try {
      const path = rrsetPath(zone, owner, type);
      saved = existing === undefined ? await ctx.api.post<Rrset>(path, body()) : await ctx.api.put<Rrset>(path, body());
    } catch (error) {
      // The API's own words suggest PUT; here the way to change it is its editor.
      if (existing === undefined && error instanceof ApiError && error.status === 409 && /already exists/.test(error.message)) {
        throw new Error(`A ${type} record set named ${owner} already exists: open it from the zone's table to change it.`, { cause: error });
      }
      throw placeErrors(error, type, form);
    }
    for (const warning of saved.warnings ?? []) notify(warning.message);
    notify(`Record set ${saved.name} ${saved.type} saved`);
    ctx.navigate(zoneRoute);
  });

  const remove = async (rrset: Rrset): Promise<void> => {
    if (!(await confirmAction(`Delete the record set ${rrset.name} ${rrset.type} and its ${rrset.resource_records.length} record(s)?`, 'Delete'))) return;
    await run(form, async () => {
      await ctx.api.delete(rrsetPath(zone, rrset.name, rrset.type));
      notify(`Record set ${rrset.name} ${rrset.type} deleted`);
      ctx.navigate(zoneRoute);
    });
  };

  // The log of the check as saved: an RRset without one has none.
  const checked = existing !== undefined && typeof existing.meta['failover'] === 'object' && existing.meta['failover'] !== null;
  return h(
    'section',
    { class: 'rrset-page' },
    h('p', { class: 'breadcrumb' }, h('a', { href: href(zoneRoute) }, `← ${zone}`)),
    h('h1', null, title),
    readOnly ? h('p', { class: 'muted' }, 'Your role can read this record set but not change it.') : null,
    form,
    checked ? failoverLog(ctx.api, zone, existing.name, existing.type) : null,
  );
}
