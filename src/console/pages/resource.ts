// One protected resource (#/resources/:id): what it is and where its DNS should point, its whole
// document in an editor, and its traffic; #/resources/new is the same editor, empty.
import '../styles/resources.css';
import { segment } from '../api.ts';
import { h } from '../dom.ts';
import { href, type PageContext } from '../router.ts';
import { confirmAction } from '../components/dialog.ts';
import { formError, run } from '../components/form.ts';
import { notify } from '../components/notice.ts';
import { resourceEditor } from '../resources/editor.ts';
import { trafficView } from '../resources/traffic.ts';
import { utcTime, type Resource } from '../resources/types.ts';

const back = (): HTMLElement => h('p', { class: 'breadcrumb' }, h('a', { href: href('/resources') }, 'Protected resources'));

export async function resourcePage(ctx: PageContext): Promise<HTMLElement> {
  const id = ctx.params['id'];
  if (id === undefined) return newResourcePage(ctx);
  const resource = await ctx.api.get<Resource>(`/security/resources/${segment(id)}`);
  const traffic = ctx.query.get('view') === 'traffic';
  const path = `/resources/${segment(resource.id)}`;
  const tab = (label: string, to: string, current: boolean): HTMLElement => h('a', { href: href(to), 'aria-current': current ? 'page' : null }, label);
  return h(
    'section',
    { class: 'resource-page' },
    back(),
    h('h1', null, resource.name),
    summary(ctx, resource),
    h('nav', { class: 'tabs', 'aria-label': 'Resource views' }, tab('Settings', path, !traffic), tab('Traffic', `${path}?view=traffic`, traffic)),
    traffic
      ? trafficView(ctx.api, resource.id, ctx.query.get('range'))
      : resourceEditor({
          resource,
          readOnly: !ctx.session.canWrite(),
          save: async (body) => {
            await ctx.api.put<Resource>(`/security/resources/${segment(resource.id)}`, body);
            notify('Resource saved');
            ctx.reload();
          },
        }),
  );
}

function newResourcePage(ctx: PageContext): HTMLElement {
  if (!ctx.session.canWrite()) {
    return h('section', null, back(), h('h1', null, 'New protected resource'), h('p', null, 'Your role can read resources but not create them.'));
  }
  return h(
    'section',
    { class: 'resource-page' },
    back(),
    h('h1', null, 'New protected resource'),
    resourceEditor({
      resource: undefined,
      readOnly: false,
      save: async (body) => {
        const created = await ctx.api.post<Resource>('/security/resources', body);
        notify(`${created.name} is protected`);
        ctx.navigate(`/resources/${segment(created.id)}`);
      },
    }),
  );
}

/** The state of the resource and what the user must do for traffic to arrive: point DNS here. */
function summary(ctx: PageContext, resource: Resource): HTMLElement {
  const released = resource.released_hosts ?? [];
  let state: HTMLElement;
  if (!resource.enabled) state = h('span', { class: 'status status-disabled' }, 'disabled');
  else if (resource.active) state = h('span', { class: 'status status-active' }, 'served');
  else state = h('span', { class: 'status status-off' }, 'not served');
  const reason = resource.enabled && !resource.active ? h('span', { class: 'muted' }, ' — it needs an origin that is not down and a name it holds') : null;
  const card = h(
    'div',
    { class: 'card resource-summary' },
    h(
      'dl',
      { class: 'facts' },
      h('dt', null, 'State'),
      h('dd', null, state, reason),
      h('dt', null, 'DNS'),
      h('dd', null, 'Point ', h('strong', null, [resource.name, ...resource.aliases.map((a) => a.alias_data)].join(', ')), ' at ', h('code', null, resource.service_ip)),
      h('dt', null, 'Changed'),
      h('dd', null, utcTime(Date.parse(resource.updated) / 1000), h('span', { class: 'muted' }, ` (created ${utcTime(Date.parse(resource.created) / 1000)})`)),
    ),
    released.length === 0
      ? null
      : h('p', { class: 'warning' }, `Another account's zone now holds ${released.join(', ')}: the proxy no longer serves ${released.length === 1 ? 'it' : 'them'} for this resource.`),
    formError(),
  );
  if (ctx.session.canWrite()) {
    const remove = h('button', { type: 'button', class: 'danger', 'data-write': true }, 'Delete resource');
    remove.addEventListener('click', () =>
      void run(card, async () => {
        if (!(await confirmAction(`Delete ${resource.name}? The proxy stops serving it at once.`, 'Delete'))) return;
        await ctx.api.delete(`/security/resources/${segment(resource.id)}`);
        notify(`${resource.name} deleted`);
        ctx.navigate('/resources');
      }),
    );
    card.append(h('div', { class: 'actions' }, remove));
  }
  return card;
}
