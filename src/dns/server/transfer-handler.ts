// Which queries are zone transfers and how they are answered: AXFR (transfer.ts) and IXFR
// (ixfr.ts), over TCP; IXFR over UDP gets the current SOA alone. A transfer is for a served zone,
// from an address in EDGEPLANE_DNS_TRANSFER_ALLOW, and signed with a key of EDGEPLANE_DNS_TSIG_KEYS
// when there are any (tsig.ts), every message of the answer signed in turn. Anything else is the
// ordinary path's to answer (it refuses transfer types).
import type { FastifyBaseLogger } from 'fastify';
import type { Network } from '../../net/networks.ts';
import type { Db } from '../../store/database.ts';
import { typeCode } from '../wire/type-codes.ts';
import { clientSerial, ixfrMessages, soaOnly } from './ixfr.ts';
import { QueryError, type Query } from './query.ts';
import { failure } from './respond.ts';
import { rcode } from './response.ts';
import type { ServedZones } from './served-zones.ts';
import type { TcpReply } from './tcp-connection.ts';
import { errorReply, questionType, transferAllowed, transferMessages, transferQuery } from './transfer.ts';
import { appendTsig, errorRecord, signReplies, verifyRequest, type SignedRequest, type TsigKey } from './tsig.ts';
import type { ZoneView } from './zone-view.ts';

export interface TransferSettings {
  db: Db;
  zones: ServedZones;
  allow: readonly Network[];
  keys: readonly TsigKey[];
  logger: FastifyBaseLogger;
}

/** A transfer query for a served zone from an allowed peer, checked; undefined: the ordinary path's. */
type Checked = { query: Query; zone: ZoneView; request: SignedRequest | undefined } | { refusal: Buffer } | undefined;

export class TransferHandler {
  readonly #s: TransferSettings;

  constructor(settings: TransferSettings) {
    this.#s = settings;
  }

  #check(message: Buffer, source: string, udp: boolean): Checked {
    const query = transferQuery(message);
    const zone = query === undefined ? undefined : this.#s.zones.get(query.name);
    if (query === undefined || zone === undefined || (udp && query.qtype !== typeCode.ixfr) || !transferAllowed(source, this.#s.allow)) return undefined;
    const { keys, logger } = this.#s;
    if (keys.length === 0) return { query, zone, request: undefined };
    const verified = verifyRequest(message, keys);
    if (verified.ok) return { query, zone, request: verified.request };
    logger.warn({ zone: zone.name, peer: source, serial: zone.head.serial, tsig_error: verified.error ?? 'unsigned' }, 'zone transfer refused: TSIG');
    if (verified.error === undefined) return undefined;
    return { refusal: appendTsig(errorReply(query, rcode.notAuth), errorRecord(verified.keyName, keys[0]?.algorithm ?? 'hmac-sha256', query.id, verified.error)) };
  }

  #log(zone: ZoneView, source: string, request: SignedRequest | undefined, fields: Record<string, unknown>): void {
    this.#s.logger.info({ zone: zone.name, peer: source, serial: zone.head.serial, ...(request === undefined ? {} : { key: request.key.name }), ...fields }, 'zone transfer');
  }

  /** Over TCP: the transfer's messages (promised for an IXFR, read from the journal), or undefined. */
  tcp(message: Buffer, source: string): TcpReply {
    const checked = this.#check(message, source, false);
    if (checked === undefined || 'refusal' in checked) return checked?.refusal;
    const { query, zone, request } = checked;
    const sign = (messages: Iterable<Buffer>) => (request === undefined ? messages : signReplies(messages, request));
    // The catalog's member list exists only in its transfers.
    const extra = this.#s.zones.transferExtras(zone);
    if (query.qtype === typeCode.axfr) {
      this.#log(zone, source, request, { type: 'AXFR' });
      return sign(transferMessages(zone, query, extra));
    }
    let serial: number;
    try {
      serial = clientSerial(message, query);
    } catch (e) {
      if (!(e instanceof QueryError)) throw e;
      return sign([errorReply(query, rcode.formErr)]);
    }
    return ixfrMessages(this.#s.db, zone, query, serial, extra).then(
      ({ kind, messages }) => {
        this.#log(zone, source, request, { type: 'IXFR', from: serial, answer: kind });
        return sign(messages);
      },
      (e: unknown) => {
        this.#s.logger.error({ err: e, zone: zone.name }, 'IXFR failed: the zone journal could not be read');
        return failure(message, e);
      },
    );
  }

  /** Over UDP: an IXFR gets the current SOA alone (logged by no one: it is one record); AXFR and anything else are the ordinary path's. */
  udp(message: Buffer, source: string): Buffer | undefined {
    if (questionType(message) !== typeCode.ixfr) return undefined;
    const checked = this.#check(message, source, true);
    if (checked === undefined || 'refusal' in checked) return checked?.refusal;
    const { query, zone, request } = checked;
    let reply: Buffer;
    try {
      clientSerial(message, query);
      reply = soaOnly(zone, query);
    } catch (e) {
      if (!(e instanceof QueryError)) throw e;
      reply = errorReply(query, rcode.formErr);
    }
    if (request === undefined) return reply;
    const [signed] = signReplies([reply], request);
    return signed;
  }
}
