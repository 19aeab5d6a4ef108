// The PROXY protocol header a load balancer sends first on each connection it opens to us, naming the
// client it accepted (HAProxy's proxy-protocol.txt, versions 1 and 2): read from the bytes received so
// far, strictly, since on a listener that expects it whoever connects directly could otherwise claim
// any address. The addresses of the load balancer's side (destination) are checked, not kept.
import { isIPv4, isIPv6 } from 'node:net';
import ipaddr from 'ipaddr.js';
import { canonicalIpv6 } from './client-address.ts';

/** The client a header names: undefined for LOCAL (the balancer's own health check) and UNKNOWN: the socket's peer is the client. */
export interface ProxySource {
  address: string;
  port: number;
}

export type ProxyHeader =
  | { state: 'partial' }
  | { state: 'invalid'; reason: string }
  /** `length`: the header's bytes, after which the client's own bytes begin. */
  | { state: 'complete'; length: number; source: ProxySource | undefined };

/** Version 1: one line of at most 107 bytes, CRLF included (the spec's own bound). */
export const maxV1Length = 107;
/**
 * Version 2: 16 bytes and then up to 65,535 of addresses and TLVs. Real balancers send some tens of
 * TLV bytes (AWS's VPC endpoint, HAProxy's TLS details and unique id stay well under 1 KiB); beyond
 * 4 KiB in all a header is refused rather than buffered.
 */
export const maxV2Length = 4096;

const v1Prefix = Buffer.from('PROXY ', 'latin1');
const v2Signature = Buffer.from([0x0d, 0x0a, 0x0d, 0x0a, 0x00, 0x0d, 0x0a, 0x51, 0x55, 0x49, 0x54, 0x0a]);
const partial: ProxyHeader = { state: 'partial' };
const invalid = (reason: string): ProxyHeader => ({ state: 'invalid', reason });

/** What the bytes received so far hold: not enough yet, a header that can never be valid, or a whole header. */
export function readProxyHeader(bytes: Buffer): ProxyHeader {
  if (bytes.length === 0) return partial;
  const signature = bytes[0] === v1Prefix[0] ? v1Prefix : v2Signature;
  const seen = Math.min(bytes.length, signature.length);
  if (bytes.compare(signature, 0, seen, 0, seen) !== 0) return invalid('no PROXY protocol header');
  if (bytes.length < signature.length) return partial;
  return signature === v1Prefix ? readV1(bytes) : readV2(bytes);
}

const port = /^(?:0|[1-9][0-9]{0,4})$/;

function readV1(bytes: Buffer): ProxyHeader {
  const newline = bytes.subarray(0, maxV1Length).indexOf(0x0a);
  if (newline < 0) return bytes.length >= maxV1Length ? invalid('version 1 line longer than 107 bytes') : partial;
  if (bytes[newline - 1] !== 0x0d) return invalid('version 1 line does not end with CRLF');
  const line = bytes.toString('latin1', 0, newline - 1);
  const length = newline + 1;
  const fields = line.split(' ');
  // UNKNOWN: the balancer could not tell (another protocol family); the rest of the line is to be ignored.
  if (fields[1] === 'UNKNOWN') return { state: 'complete', length, source: undefined };
  const [, family, source, destination, sourcePort, destinationPort] = fields;
  const isFamily = family === 'TCP4' ? isIPv4 : family === 'TCP6' ? isIPv6 : undefined;
  if (isFamily === undefined) return invalid('version 1 protocol is not TCP4, TCP6 or UNKNOWN');
  if (fields.length !== 6 || source === undefined || destination === undefined || sourcePort === undefined || destinationPort === undefined) {
    return invalid('version 1 line is not PROXY <family> <source> <destination> <port> <port>');
  }
  // isIPv6 accepts a zone index (fe80::1%eth0), which names an interface of the balancer, not a client.
  if (!isFamily(source) || !isFamily(destination) || source.includes('%') || destination.includes('%')) {
    return invalid(`version 1 addresses are not ${family} addresses`);
  }
  if (!validPort(sourcePort) || !validPort(destinationPort)) return invalid('version 1 ports are not 0-65535 in decimal');
  return { state: 'complete', length, source: { address: family === 'TCP4' ? source : canonicalIpv6(source), port: Number(sourcePort) } };
}

function validPort(text: string): boolean {
  return port.test(text) && Number(text) <= 65_535;
}

const commandLocal = 0x0;
const commandProxy = 0x1;
const familyUnspecified = 0x0;
const familyInet = 0x1;
const familyInet6 = 0x2;
const familyUnix = 0x3;
const transportStream = 0x1;

function readV2(bytes: Buffer): ProxyHeader {
  if (bytes.length < 16) return partial;
  const versionCommand = bytes[12] ?? 0;
  if (versionCommand >> 4 !== 2) return invalid('version 2 header of another version');
  const command = versionCommand & 0x0f;
  if (command !== commandLocal && command !== commandProxy) return invalid('version 2 command is neither LOCAL nor PROXY');
  const familyTransport = bytes[13] ?? 0;
  const length = 16 + bytes.readUInt16BE(14);
  if (length > maxV2Length) return invalid(`version 2 header longer than ${String(maxV2Length)} bytes`);
  if (bytes.length < length) return partial;
  // LOCAL: a connection of the balancer's own (a health check); whatever address block follows is to be ignored.
  if (command === commandLocal) return { state: 'complete', length, source: undefined };
  const family = familyTransport >> 4;
  if (family === familyUnspecified || family === familyUnix) return { state: 'complete', length, source: undefined };
  if (family !== familyInet && family !== familyInet6) return invalid('version 2 address family is unknown');
  if ((familyTransport & 0x0f) !== transportStream) return invalid('version 2 transport is not a stream (TCP)');
  const addressBytes = family === familyInet ? 4 : 16;
  if (length - 16 < 2 * addressBytes + 4) return invalid('version 2 address block shorter than its family needs');
  const ip = ipaddr.fromByteArray([...bytes.subarray(16, 16 + addressBytes)]);
  const address = ip instanceof ipaddr.IPv6 && ip.isIPv4MappedAddress() ? ip.toIPv4Address().toString() : ip.toString();
  const sourcePort = bytes.readUInt16BE(16 + 2 * addressBytes);
  return { state: 'complete', length, source: { address, port: sourcePort } };
}
