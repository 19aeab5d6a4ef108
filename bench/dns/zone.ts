// The generated zones: what each name holds is a function of its number, so the zone, the geodns
// variant and the query file agree without sharing state, and every run generates the same data.
//
// Names `host<i>`, by i % 20: 0-14 an A record (75% of names), 15-17 A and AAAA (15%), 18-19 a CNAME
// (10%) to host<i - 18> (an A name with pickers in the geodns variant) or host<i - 18 + 1> (plain).
// In the geodns variant the A RRset of every name with i % 5 == 0 (a fifth of the names) has pickers.

export const benchZone = 'bench.example';
export const loadZone = 'load.example';

export type Kind = 'a' | 'dual' | 'cname';

export function kindOf(i: number): Kind {
  const k = i % 20;
  return k < 15 ? 'a' : k < 18 ? 'dual' : 'cname';
}

export const hasPickers = (i: number): boolean => i % 5 === 0;

export const ttl = 300;

/** An address in 198.18.0.0/15 (RFC 2544, benchmarking), distinct for 131,072 names. */
export function address4(i: number): string {
  return `198.${18 + ((i >> 16) & 1)}.${(i >> 8) & 255}.${i & 255}`;
}

/** An address in 2001:db8::/32 (RFC 3849), written the way RFC 5952 does (no zero run to compress). */
export function address6(i: number): string {
  return `2001:db8:1:2:3:4:${(i >>> 16).toString(16)}:${(i & 0xffff).toString(16)}`;
}

export function cnameTarget(i: number): number {
  return i - (i % 20) + (i % 20 === 18 ? 0 : 1);
}

/** What a geodns RRset answers, per requester country; anyone else gets the plain record (default). */
export const geoAnswers = {
  US: (i: number) => `192.0.2.${(i % 250) + 1}`,
  DE: (i: number) => `198.51.100.${(i % 250) + 1}`,
};

/** RRsets as zone-file lines relative to the zone's $ORIGIN; `records` counts the lines. */
export function* zoneLines(names: number): Generator<string> {
  for (let i = 0; i < names; i++) {
    const owner = `host${i}`;
    const kind = kindOf(i);
    if (kind === 'cname') {
      yield `${owner}\t${ttl}\tIN\tCNAME\thost${cnameTarget(i)}`;
      continue;
    }
    yield `${owner}\t${ttl}\tIN\tA\t${address4(i)}`;
    if (kind === 'dual') yield `${owner}\t${ttl}\tIN\tAAAA\t${address6(i)}`;
  }
}

/** Records per name on average: 0.75 × 1 + 0.15 × 2 + 0.10 × 1. */
export const recordsPerName = 1.15;

/** Names needed for at least `records` records. */
export function namesFor(records: number): number {
  let names = Math.floor(records / recordsPerName);
  while (countRecords(names) < records) names++;
  return names;
}

export function countRecords(names: number): number {
  const full = Math.floor(names / 20);
  let records = full * 23;
  for (let i = full * 20; i < names; i++) records += kindOf(i) === 'dual' ? 2 : 1;
  return records;
}

/** A complete zone file (SOA and apex NS first), for servers that load the zone from a file. */
export function zoneFileHeader(zone: string, serial: number): string {
  return [
    `$ORIGIN ${zone}.`,
    `$TTL ${ttl}`,
    `@\t${ttl}\tIN\tSOA\tns1.${zone}. hostmaster.${zone}. ${serial} 3600 600 1209600 300`,
    `@\t86400\tIN\tNS\tns1.edgeplane.invalid.`,
    `@\t86400\tIN\tNS\tns2.edgeplane.invalid.`,
    '',
  ].join('\n');
}

/** The body edgeplane's API takes for the geodns variant of host<i>'s A RRset. */
export function geodnsRrset(i: number): Record<string, unknown> {
  return {
    ttl,
    pickers: [{ type: 'geodns' }],
    resource_records: [
      { content: [geoAnswers.US(i)], meta: { countries: ['US'] } },
      { content: [geoAnswers.DE(i)], meta: { countries: ['DE'] } },
      // The plain record: what Knot and PowerDNS serve, and what edgeplane answers everyone else.
      { content: [address4(i)], meta: { default: true } },
    ],
  };
}
