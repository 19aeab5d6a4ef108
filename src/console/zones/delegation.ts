// The zone page's Delegation tab: whether the public DNS delegates the zone to our name servers
// (GET /dns/v2/analyze/{name}/delegation-status, asked through the operator's resolver). It asks
// when the tab opens, since that is what the tab is for, and again on "Check again".
import { segment, type Api } from '../api.ts';
import { h, uniqueId, type Child } from '../dom.ts';
import { resolverCheck } from '../components/resolver-notice.ts';
import type { Zone } from './model.ts';

interface NameServer {
  name: string;
  ipv4Addresses: string[];
  ipv6Addresses: string[];
}

export interface DelegationStatus {
  authoritative_name_servers: NameServer[];
  gcore_authorized_count: number;
  non_gcore_authorized_count: number;
  is_whitelabel_delegation: boolean;
  zone_exists: boolean;
  status: 'ok' | 'partial' | 'wrong' | 'not_delegated';
  expected_name_servers: string[];
}

const verdicts: Record<DelegationStatus['status'], string> = {
  ok: 'Delegated here: every name server the public DNS reports is ours.',
  partial: 'Partly delegated: some of the name servers the public DNS reports are not ours, so some resolvers get other answers.',
  wrong: 'Not delegated here: none of the name servers the public DNS reports is ours. Set ours at your registrar.',
  not_delegated: 'Not delegated: the public DNS has no name servers for this name. Register it or set ours at your registrar.',
};

export function delegationSection(api: Api, zone: Zone): HTMLElement {
  const titleId = uniqueId('delegation');
  const result = h('div', { class: 'delegation-result', 'aria-live': 'polite' });
  const button = h('button', { type: 'button', class: 'secondary' }, 'Check again');
  const check = resolverCheck(result, button, async () => report(await api.get<DelegationStatus>(`/dns/v2/analyze/${segment(zone.name)}/delegation-status`)));
  button.addEventListener('click', () => void check());
  void check();
  return h(
    'section',
    { class: 'card delegation', 'aria-labelledby': titleId },
    h('h2', { id: titleId }, 'Delegation'),
    h('p', { class: 'muted' }, `Asks the public DNS which name servers ${zone.name} is delegated to and compares them with ours.`),
    result,
    h('div', { class: 'actions' }, button),
  );
}

function report(answer: DelegationStatus): Child[] {
  const ours = new Set(answer.expected_name_servers.map((n) => n.toLowerCase()));
  return [
    h(
      'p',
      { class: 'delegation-status' },
      h('span', { class: `status ${answer.status === 'ok' ? 'status-on' : 'status-off'}`, 'data-status': answer.status }, answer.status.replace('_', ' ')),
      ' ',
      verdicts[answer.status],
    ),
    answer.is_whitelabel_delegation ? h('p', null, 'Delegated under the zone\'s own name server names (vanity name servers).') : null,
    h('h3', null, 'Reported by the public DNS'),
    answer.authoritative_name_servers.length === 0
      ? h('p', { class: 'muted' }, 'No name servers.')
      : h(
          'div',
          { class: 'table-wrap' },
          h(
            'table',
            { class: 'delegation-table', 'aria-label': 'Name servers reported by the public DNS' },
            h('thead', null, h('tr', null, ...['Name server', 'IPv4', 'IPv6', 'Ours'].map((t) => h('th', { scope: 'col' }, t)))),
            h(
              'tbody',
              null,
              answer.authoritative_name_servers.map((ns) => {
                const mine = ours.has(ns.name.toLowerCase().replace(/\.$/, ''));
                return h(
                  'tr',
                  null,
                  h('th', { scope: 'row', class: 'mono' }, ns.name),
                  h('td', { class: 'mono content' }, ns.ipv4Addresses.join(', ') || '—'),
                  h('td', { class: 'mono content' }, ns.ipv6Addresses.join(', ') || '—'),
                  h('td', null, h('span', { class: `status ${mine ? 'status-on' : 'status-off'}` }, mine ? 'ours' : 'not ours')),
                );
              }),
            ),
          ),
        ),
    h('h3', null, 'Ours'),
    answer.expected_name_servers.length === 0
      ? h('p', { class: 'muted' }, 'The service has no name servers configured.')
      : h('ul', { class: 'expected-ns' }, answer.expected_name_servers.map((n) => h('li', { class: 'mono' }, n))),
  ];
}
