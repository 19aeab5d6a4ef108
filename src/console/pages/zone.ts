// One zone: its name and state with the actions on the whole zone, then five tabs — the record sets,
// the SOA settings, DNSSEC (with the parent's DS), the delegation and the zone file. The tab is part
// of the address (#/zones/x?tab=dnssec), so a reload or a shared link opens the same one.
import '../styles/zones.css';
import { segment } from '../api.ts';
import { h, replace, type Child } from '../dom.ts';
import { href, type PageContext } from '../router.ts';
import { delegationSection } from '../zones/delegation.ts';
import { dnssecSection } from '../zones/dnssec.ts';
import { loadZone, type Zone } from '../zones/model.ts';
import { parentDsCard } from '../zones/parent-ds.ts';
import { settingsSection } from '../zones/settings.ts';
import { deleteButton, toggleButton } from '../zones/zone-actions.ts';
import { zoneFileSection } from '../zones/zone-file.ts';
import { recordsSection } from './zone-records.ts';

const tabs = [
  ['records', 'Records'],
  ['settings', 'Settings'],
  ['dnssec', 'DNSSEC'],
  ['delegation', 'Delegation'],
  ['file', 'Zone file'],
] as const;

type Tab = (typeof tabs)[number][0];

export async function zonePage(ctx: PageContext): Promise<HTMLElement> {
  const zone = await loadZone(ctx.api, ctx.params['zone'] ?? '');
  const asked = ctx.query.get('tab');
  const tab: Tab = tabs.find(([id]) => id === asked)?.[0] ?? 'records';
  const canWrite = ctx.session.canWrite();
  const path = `/zones/${segment(zone.name)}`;
  // Opened as typed (`Shop.Example.`): the address takes the name the API keeps, as the list links it.
  if (ctx.params['zone'] !== zone.name && stillAt(ctx.params['zone'] ?? '')) history.replaceState(null, '', href(tab === 'records' ? path : `${path}?tab=${tab}`));

  const facts = h('p', { class: 'zone-facts' });
  const showFacts = (z: Zone): void =>
    replace(
      facts,
      h('span', { class: `status status-${z.status}` }, z.status),
      h('span', { class: `status ${z.dnssec_enabled ? 'status-on' : 'status-off'}` }, `DNSSEC ${z.dnssec_enabled ? 'on' : 'off'}`),
      h('span', null, 'Serial ', h('span', { class: 'mono' }, z.serial)),
      z.rrsets_amount === undefined ? null : h('span', null, `${z.rrsets_amount.total} record set${z.rrsets_amount.total === 1 ? '' : 's'}`),
    );
  showFacts(zone);
  // Changes made in a tab move the serial (and the counts) on: the header follows without a redraw
  // that would drop what the tab shows (an import report, a warning).
  const refreshFacts = (): void => {
    loadZone(ctx.api, zone.name).then(showFacts, () => undefined);
  };

  let content: Child;
  if (tab === 'records') content = recordsSection(ctx, zone.name);
  else if (tab === 'settings') content = settingsSection(ctx.api, zone, { readOnly: !canWrite, onSaved: showFacts });
  else if (tab === 'dnssec') content = [await dnssecSection(ctx.api, zone, { canWrite, onChanged: () => ctx.reload() }), parentDsCard(ctx.api, zone)];
  else if (tab === 'delegation') content = delegationSection(ctx.api, zone);
  else content = zoneFileSection(ctx.api, zone, { canWrite, onImported: refreshFacts });

  return h(
    'section',
    { class: 'zone-page' },
    h('p', { class: 'zone-breadcrumb' }, h('a', { href: href('/zones') }, 'DNS zones')),
    h(
      'div',
      { class: 'zone-header' },
      h('div', null, h('h1', null, zone.name), facts),
      canWrite
        ? h(
            'div',
            { class: 'actions' },
            toggleButton(ctx.api, zone, { named: false, onDone: () => ctx.reload() }),
            deleteButton(ctx.api, zone, { named: false, onDone: () => ctx.navigate('/zones') }),
          )
        : null,
    ),
    h(
      'nav',
      { class: 'tabs', 'aria-label': 'Zone sections' },
      tabs.map(([id, label]) => h('a', { href: href(id === 'records' ? path : `${path}?tab=${id}`), 'aria-current': id === tab ? 'page' : null }, label)),
    ),
    h('div', { class: 'zone-tab' }, content),
  );
}

/** Whether the address still names this zone: a navigation made while it loaded wins. */
function stillAt(zone: string): boolean {
  const [shown = ''] = location.hash.replace(/^#/, '').split('?');
  try {
    return shown.startsWith('/zones/') && decodeURIComponent(shown.slice('/zones/'.length)) === zone;
  } catch {
    return false;
  }
}
