// One network mapping (#/network-mappings/:id): its entries in an editor (PUT replaces them), and
// its deletion; #/network-mappings/new is the same editor, empty, with the name to choose.
import '../styles/network-mappings.css';
import { h } from '../dom.ts';
import { confirmAction } from '../components/dialog.ts';
import { formError, run } from '../components/form.ts';
import { notify } from '../components/notice.ts';
import { href, type PageContext } from '../router.ts';
import { mappingEditor } from '../network-mappings/editor.ts';
import { mappingPath, mappingRoute, mappingsPath, type NetworkMapping } from '../network-mappings/model.ts';

const back = (): HTMLElement => h('p', { class: 'breadcrumb' }, h('a', { href: href('/network-mappings') }, 'Network mappings'));

export async function networkMappingPage(ctx: PageContext): Promise<HTMLElement> {
  const id = ctx.params['id'];
  if (id === undefined) return newMappingPage(ctx);
  const mapping = await ctx.api.get<NetworkMapping>(mappingPath(id));
  const canWrite = ctx.session.canWrite();
  const actions = h('div', { class: 'card mapping-actions' }, formError());
  if (canWrite) {
    const remove = h('button', { type: 'button', class: 'danger', 'data-write': true }, 'Delete mapping');
    remove.addEventListener('click', () =>
      void run(actions, async () => {
        if (!(await confirmAction(`Delete the network mapping ${mapping.name}?`, 'Delete'))) return;
        await ctx.api.delete(mappingPath(mapping.id));
        notify(`${mapping.name} deleted`);
        ctx.navigate('/network-mappings');
      }),
    );
    actions.append(h('div', { class: 'actions' }, remove));
  }
  return h(
    'section',
    { class: 'mapping-page' },
    back(),
    h('h1', null, mapping.name),
    canWrite ? null : h('p', { class: 'muted' }, 'Your role can read this mapping but not change it.'),
    mappingEditor({
      mapping,
      readOnly: !canWrite,
      save: async (body) => {
        await ctx.api.put(mappingPath(mapping.id), body);
        notify(`${mapping.name} saved`);
        ctx.reload();
      },
    }),
    canWrite ? actions : null,
  );
}

function newMappingPage(ctx: PageContext): HTMLElement {
  if (!ctx.session.canWrite()) {
    return h('section', null, back(), h('h1', null, 'New network mapping'), h('p', null, 'Your role can read network mappings but not create them.'));
  }
  return h(
    'section',
    { class: 'mapping-page' },
    back(),
    h('h1', null, 'New network mapping'),
    mappingEditor({
      mapping: undefined,
      readOnly: false,
      save: async (body) => {
        const created = await ctx.api.post<{ id: number }>(mappingsPath, body);
        notify(`${body.name ?? ''} created`);
        ctx.navigate(mappingRoute(created.id));
      },
    }),
  );
}
