// The RRset's health check, `meta.failover` (docs/api/dns.md#rrsets; what the checks do:
// docs/dns-server.md#health-checks). The healthcheck picker drops the records whose check fails.
import { h } from '../dom.ts';
import { checkbox, field, input, select } from '../components/field.ts';
import { textOf, withChanges, type Meta } from './model.ts';

export interface FailoverEditor {
  element: HTMLElement;
  /** `meta.failover`, or undefined when the check is off. */
  value(): Meta | undefined;
}

const numberOrText = (text: string): number | string | undefined => {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  return /^\d+$/.test(trimmed) ? Number(trimmed) : trimmed;
};

export function failoverEditor(meta: Meta): FailoverEditor {
  const current = (typeof meta['failover'] === 'object' && meta['failover'] !== null ? meta['failover'] : undefined) as Meta | undefined;
  const f: Meta = current ?? {};
  const text = (key: string): string => textOf(f[key]);
  const on = checkbox('Check the records\' health (failover)', current !== undefined, 'meta.failover');
  const protocol = select(
    [
      ['HTTP', 'HTTP'],
      ['TCP', 'TCP'],
      ['UDP', 'UDP'],
      ['ICMP', 'ICMP (ping)'],
    ],
    text('protocol').toUpperCase() || 'HTTP',
  );
  const port = input({ type: 'number', min: 1, max: 65535, value: text('port'), inputmode: 'numeric' });
  const frequency = input({ type: 'number', min: 10, max: 3600, value: text('frequency'), inputmode: 'numeric' });
  const timeout = input({ type: 'number', min: 1, max: 10, value: text('timeout'), inputmode: 'numeric' });
  const method = input({ value: text('method'), placeholder: 'GET', list: 'failover-methods' });
  const url = input({ value: text('url'), placeholder: '/health' });
  const host = input({ value: text('host'), placeholder: 'www.example.com' });
  const status = input({ type: 'number', min: 100, max: 599, value: text('http_status_code'), inputmode: 'numeric' });
  const regexp = input({ value: text('regexp'), placeholder: 'ok|healthy', spellcheck: 'false' });
  const tls = checkbox('TLS (HTTPS)', f['tls'] === true, 'meta.failover.tls');
  const httpOnly = h(
    'div',
    { class: 'form-grid' },
    field({ label: 'HTTP method', path: 'meta.failover.method', control: method }),
    field({ label: 'URL path', path: 'meta.failover.url', control: url }),
    field({ label: 'Host header', path: 'meta.failover.host', control: host }),
    field({ label: 'Expected HTTP status', path: 'meta.failover.http_status_code', control: status }),
    tls.element,
    h('datalist', { id: 'failover-methods' }, h('option', { value: 'GET' }), h('option', { value: 'HEAD' })),
  );
  // UDP checks match a reply too (docs/dns-server.md#health-checks).
  const matching = h(
    'div',
    { class: 'form-grid' },
    field({ label: 'Answer must match (regexp)', path: 'meta.failover.regexp', control: regexp, hint: 'HTTP: the body; UDP: the reply. No backreferences or lookaround' }),
  );
  const portField = field({ label: 'Port', path: 'meta.failover.port', control: port, hint: 'HTTP: 80, or 443 with TLS' });
  const details = h(
    'div',
    { class: 'failover-fields' },
    h(
      'div',
      { class: 'form-grid' },
      field({ label: 'Protocol', path: 'meta.failover.protocol', control: protocol }),
      portField,
      field({ label: 'Every (seconds)', path: 'meta.failover.frequency', control: frequency, hint: '10-3600' }),
      field({ label: 'Timeout (seconds)', path: 'meta.failover.timeout', control: timeout, hint: '1-10' }),
    ),
    httpOnly,
    matching,
  );
  const show = (): void => {
    details.hidden = !on.control.checked;
    httpOnly.hidden = protocol.value !== 'HTTP';
    matching.hidden = protocol.value !== 'HTTP' && protocol.value !== 'UDP';
    portField.hidden = protocol.value === 'ICMP';
  };
  on.control.addEventListener('change', show);
  protocol.addEventListener('change', show);
  show();

  return {
    element: h('div', null, on.element, details),
    value(): Meta | undefined {
      if (!on.control.checked) return undefined;
      // Keys the console has no control for stay as they were.
      const http = protocol.value === 'HTTP';
      return withChanges(f, {
        protocol: protocol.value,
        port: protocol.value === 'ICMP' ? undefined : numberOrText(port.value),
        frequency: numberOrText(frequency.value),
        timeout: numberOrText(timeout.value),
        method: http ? method.value.trim() || undefined : undefined,
        url: http ? url.value.trim() || undefined : undefined,
        host: http ? host.value.trim() || undefined : undefined,
        http_status_code: http ? numberOrText(status.value) : undefined,
        tls: http && tls.control.checked ? true : undefined,
        regexp: regexp.value === '' || matching.hidden ? undefined : regexp.value,
      });
    },
  };
}
