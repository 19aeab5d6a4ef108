// RR TYPE codes (IANA's "Resource Record (RR) TYPEs" registry) that the server and the stub client
// name in their code: what queries ask for and what messages hold beside the API's record types
// (those carry their own code, rrtypes/).
export const typeCode = {
  a: 1,
  ns: 2,
  cname: 5,
  soa: 6,
  ptr: 12,
  mx: 15,
  txt: 16,
  aaaa: 28,
  srv: 33,
  opt: 41,
  ds: 43,
  rrsig: 46,
  nsec: 47,
  dnskey: 48,
  cds: 59,
  cdnskey: 60,
  /** RFC 9824's NXNAME: a meta-type that only NSEC type bitmaps list. */
  nxname: 128,
  tsig: 250,
  ixfr: 251,
  axfr: 252,
  any: 255,
  caa: 257,
} as const;
