// "Check at the registrar": the DS records the parent zone publishes for the zone, asked through the
// operator's resolver (GET .../dnssec/parent-ds), beside the DS of our key, and whether they agree.
// It asks the public DNS, so it runs when the user asks, not each time the tab opens.
import type { Api } from '../api.ts';
import { h, uniqueId, type Child } from '../dom.ts';
import { resolverCheck } from '../components/resolver-notice.ts';
import { zonePath, type Zone } from './model.ts';

interface DsRecord {
  key_tag: number;
  algorithm: number;
  digest_type: number;
  digest: string;
  ds: string;
}

export interface ParentDs {
  name: string;
  status: 'match' | 'mismatch' | 'missing' | 'unexpected' | 'insecure' | 'not_delegated';
  summary: string;
  dnssec_enabled: boolean;
  expected: DsRecord | null;
  parent: (DsRecord & { ttl: number; matches: boolean })[];
}

/** What the user should do about each outcome; nothing when all is well. */
const advice: Record<ParentDs['status'], string | undefined> = {
  match: undefined,
  insecure: undefined,
  mismatch: 'Validating resolvers will fail to resolve the zone: give your registrar the DS record of this zone shown here, and remove the old one.',
  missing: 'Answers are signed but nobody can validate them yet: give your registrar the DS record of this zone shown here.',
  unexpected: 'Validating resolvers will fail to resolve the zone: remove the DS record at your registrar, or turn DNSSEC on.',
  not_delegated: 'The parent zone does not know this name: register or delegate it first.',
};

const good = new Set<ParentDs['status']>(['match', 'insecure']);

export function parentDsCard(api: Api, zone: Zone): HTMLElement {
  const titleId = uniqueId('parent-ds');
  const result = h('div', { class: 'parent-ds-result', 'aria-live': 'polite' });
  const button = h('button', { type: 'button', class: 'secondary' }, 'Check at the registrar');
  const check = resolverCheck(result, button, async () => report(await api.get<ParentDs>(zonePath(zone.name, '/dnssec/parent-ds'))));
  button.addEventListener('click', () => void check());
  return h(
    'section',
    { class: 'card parent-ds', 'aria-labelledby': titleId },
    h('h2', { id: titleId }, 'Check at the registrar'),
    h('p', { class: 'muted' }, `Asks the public DNS for the DS records the parent zone publishes for ${zone.name} and compares them with this zone's key.`),
    h('div', { class: 'actions' }, button),
    result,
  );
}

function report(answer: ParentDs): Child[] {
  const todo = advice[answer.status];
  return [
    h(
      'p',
      { class: 'parent-ds-status' },
      h('span', { class: `status ${good.has(answer.status) ? 'status-on' : 'status-off'}`, 'data-status': answer.status }, answer.status.replace('_', ' ')),
      ' ',
      answer.summary,
    ),
    todo === undefined ? null : h('p', { class: 'warning' }, todo),
    h(
      'div',
      { class: 'ds-compare' },
      h(
        'section',
        { 'aria-label': 'DS of this zone' },
        h('h3', null, 'This zone'),
        answer.expected === null ? h('p', { class: 'muted' }, 'No DS: DNSSEC is off.') : h('pre', { class: 'ds-line', tabindex: 0 }, answer.expected.ds),
      ),
      h(
        'section',
        { 'aria-label': 'DS at the parent' },
        h('h3', null, 'At the parent'),
        answer.parent.length === 0
          ? h('p', { class: 'muted' }, 'No DS record.')
          : h(
              'div',
              { class: 'table-wrap' },
              h(
                'table',
                { class: 'parent-ds-table', 'aria-label': 'DS records at the parent' },
                h('thead', null, h('tr', null, ...['Key tag', 'Algorithm', 'Digest type', 'Digest', 'TTL', 'Ours'].map((t) => h('th', { scope: 'col' }, t)))),
                h(
                  'tbody',
                  null,
                  answer.parent.map((ds) =>
                    h(
                      'tr',
                      null,
                      h('td', { class: 'mono' }, ds.key_tag),
                      h('td', { class: 'mono' }, ds.algorithm),
                      h('td', { class: 'mono' }, ds.digest_type),
                      h('td', { class: 'mono content' }, ds.digest),
                      h('td', null, ds.ttl),
                      h('td', null, h('span', { class: `status ${ds.matches ? 'status-on' : 'status-off'}` }, ds.matches ? 'matches' : 'not ours')),
                    ),
                  ),
                ),
              ),
            ),
      ),
    ),
  ];
}
