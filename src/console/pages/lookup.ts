// DNS lookup (#/lookup?name=www.example.com&type=A): the records the operator's resolver answers
// for a name (GET /dns/v2/lookup), a CNAME chain included. The address keeps the question, so a
// reload or a shared link asks it again.
import '../styles/lookup.css';
import { ApiError, queryString } from '../api.ts';
import { h, replace } from '../dom.ts';
import { field, input, select } from '../components/field.ts';
import { formError, onSubmit, run } from '../components/form.ts';
import { resolverNotice } from '../components/resolver-notice.ts';
import { href, type PageContext } from '../router.ts';

/** The types the API looks up (docs/api/dns.md#lookup); none: A, AAAA, MX, NS and TXT together. */
const lookupTypes = ['A', 'AAAA', 'CAA', 'CNAME', 'DS', 'MX', 'NS', 'PTR', 'SOA', 'SRV', 'TXT'];

interface Answer {
  name: string;
  type: string;
  ttl: number;
  content: string[];
}

export function lookupPage(ctx: PageContext): HTMLElement {
  const asked = { name: ctx.query.get('name') ?? '', type: (ctx.query.get('type') ?? '').toUpperCase() };
  const name = input({ type: 'text', value: asked.name, autocomplete: 'off', spellcheck: 'false', placeholder: 'www.example.com', required: true });
  const type = select([['', 'A, AAAA, MX, NS and TXT'], ...lookupTypes.map((t): [string, string] => [t, t])], lookupTypes.includes(asked.type) ? asked.type : '');
  const result = h('div', { class: 'lookup-result', 'aria-live': 'polite' });
  const form = h(
    'form',
    { class: 'card lookup-form', role: 'search', 'aria-label': 'DNS lookup', novalidate: true },
    h('div', { class: 'toolbar' }, field({ label: 'Name', path: 'name', control: name }), field({ label: 'Type', path: 'type', control: type }), h('div', { class: 'field' }, h('button', { type: 'submit' }, 'Look up'))),
    formError(),
  );

  const lookUp = async (): Promise<void> => {
    const question = { name: name.value.trim(), type: type.value || undefined };
    if (question.name === '') throw new ApiError(400, 'invalid', 'Type a name to look up', { name: 'required' });
    // Only while this page is the one shown: a late answer must not rewrite another page's address.
    if (form.isConnected) history.replaceState(null, '', href(`/lookup${queryString(question)}`));
    replace(result, h('p', { class: 'muted' }, 'Asking the public DNS…'));
    let answer: Answer[];
    try {
      answer = await ctx.api.get<Answer[]>('/dns/v2/lookup', question);
    } catch (error) {
      // A bad name is the form's to show beside its field; the resolver's troubles are the notice's.
      if (error instanceof ApiError && error.status === 400) {
        replace(result);
        // The reason is beside the field; the form's line need not say it twice.
        throw Object.keys(error.fields).length === 0 ? error : new ApiError(error.status, error.code, 'This cannot be looked up.', error.fields);
      }
      replace(result, resolverNotice(error));
      return;
    }
    replace(result, report(question.name, answer));
  };
  onSubmit(form, lookUp);
  if (asked.name !== '') void run(form, lookUp);

  return h(
    'section',
    { class: 'lookup-page' },
    h('h1', null, 'DNS lookup'),
    h('p', { class: 'muted' }, 'The records the public DNS answers for a name, asked through this service\'s resolver, CNAME chain included.'),
    form,
    result,
  );
}

function report(name: string, answer: Answer[]): HTMLElement {
  if (answer.length === 0) return h('p', { class: 'muted' }, `No records: ${name} does not exist or has none of that type.`);
  return h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      { class: 'lookup-table', 'aria-label': `Records of ${name}` },
      h('thead', null, h('tr', null, ...['Name', 'Type', 'TTL', 'Records'].map((t) => h('th', { scope: 'col' }, t)))),
      h(
        'tbody',
        null,
        answer.map((rrset) =>
          h(
            'tr',
            null,
            h('th', { scope: 'row', class: 'mono' }, rrset.name),
            h('td', null, rrset.type),
            h('td', null, rrset.ttl),
            h('td', { class: 'content' }, h('ul', { class: 'lookup-records' }, rrset.content.map((c) => h('li', { class: 'mono' }, c)))),
          ),
        ),
      ),
    ),
  );
}
