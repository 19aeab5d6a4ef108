// Validation of a network mapping as clients send it (the provider's shape):
// {"name": "...", "mapping": [{"tags": [...], "cidr4": [...], "cidr6": [...]}]}. Unknown and
// read-only keys (`id`) are ignored and `null` is absent, as everywhere in /dns/v2.
import type { FieldErrors } from '../errors.ts';
import { parseNetwork } from '../net/networks.ts';

export interface MappingEntry {
  tags: string[];
  cidr4: string[];
  cidr6: string[];
}

export interface NetworkMappingInput {
  name: string | undefined;
  mapping: MappingEntry[];
}

/** Bounds of what one account may make us hold: documented in docs/api/dns.md. */
export const maxEntries = 100;
export const maxNetworks = 5000;
export const maxTags = 32;
const maxTagLength = 64;
const namePattern = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

export function nameProblem(name: unknown): string | undefined {
  if (typeof name !== 'string' || !namePattern.test(name)) return 'must be 1-64 letters, digits, `_`, `.` or `-`, starting with a letter or digit';
  return undefined;
}

function strings(value: unknown, path: string, fields: FieldErrors): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) {
    fields[path] = 'must be an array of strings';
    return [];
  }
  const bad = value.findIndex((v) => typeof v !== 'string');
  if (bad >= 0) {
    fields[`${path}[${String(bad)}]`] = 'must be a string';
    return [];
  }
  return (value as string[]).map((v) => v.trim());
}

function networks(value: unknown, path: string, family: 'ipv4' | 'ipv6', fields: FieldErrors): string[] {
  const list = strings(value, path, fields);
  for (const [i, text] of list.entries()) {
    let kind: string | undefined;
    try {
      kind = parseNetwork(text)[0].kind();
    } catch {
      kind = undefined;
    }
    if (kind !== family) {
      fields[`${path}[${String(i)}]`] = `must be an ${family === 'ipv4' ? 'IPv4' : 'IPv6'} address or CIDR`;
      break;
    }
  }
  return list;
}

function entry(raw: unknown, path: string, fields: FieldErrors): MappingEntry {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    fields[path] = 'must be an object with tags, cidr4 and cidr6';
    return { tags: [], cidr4: [], cidr6: [] };
  }
  const e = raw as Record<string, unknown>;
  const tags = strings(e['tags'], `${path}.tags`, fields);
  if (tags.length > maxTags) fields[`${path}.tags`] = `at most ${String(maxTags)} tags`;
  const badTag = tags.findIndex((t) => t.length === 0 || t.length > maxTagLength);
  if (badTag >= 0) fields[`${path}.tags[${String(badTag)}]`] = `must be 1-${String(maxTagLength)} characters`;
  return { tags, cidr4: networks(e['cidr4'], `${path}.cidr4`, 'ipv4', fields), cidr6: networks(e['cidr6'], `${path}.cidr6`, 'ipv6', fields) };
}

/** The mapping as sent, with every problem in `fields` (empty when valid). */
export function validateNetworkMapping(body: unknown, fields: FieldErrors, path = ''): NetworkMappingInput {
  const at = (key: string) => (path === '' ? key : `${path}.${key}`);
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    fields[path === '' ? 'body' : path] = 'must be an object with name and mapping';
    return { name: undefined, mapping: [] };
  }
  const b = body as Record<string, unknown>;
  const rawName = b['name'] ?? undefined;
  if (rawName !== undefined) {
    const problem = nameProblem(rawName);
    if (problem !== undefined) fields[at('name')] = problem;
  }
  const rawMapping = b['mapping'] ?? [];
  if (!Array.isArray(rawMapping)) {
    fields[at('mapping')] = 'must be an array of {tags, cidr4, cidr6}';
    return { name: typeof rawName === 'string' ? rawName : undefined, mapping: [] };
  }
  if (rawMapping.length > maxEntries) {
    fields[at('mapping')] = `at most ${String(maxEntries)} entries`;
    return { name: typeof rawName === 'string' ? rawName : undefined, mapping: [] };
  }
  const mapping = rawMapping.map((raw: unknown, i) => entry(raw, `${at('mapping')}[${String(i)}]`, fields));
  const total = mapping.reduce((sum, e) => sum + e.cidr4.length + e.cidr6.length, 0);
  if (total > maxNetworks) fields[at('mapping')] = `at most ${String(maxNetworks)} networks in all`;
  return { name: typeof rawName === 'string' ? rawName : undefined, mapping };
}
