// HTTPS and SVCB (RFC 9460): one implementation, two type codes.
import { integer } from './fields.ts';
import { ContentError, type RecordType } from './record-type.ts';
import { uint16 } from './octets.ts';
import { paramsFromText, paramsToText, paramsToWire, parseParams } from './svcb-params.ts';
import { fullyQualified, hostName, nameFromText, wireName } from './target.ts';

export function serviceBindingType(type: string, code: number): RecordType {
  return {
    type,
    code,
    parse(content) {
      if (content.length < 2) {
        throw new ContentError(`${type} content must be [priority, target, [key, values...]...], got ${content.length} element${content.length === 1 ? '' : 's'}`);
      }
      const [priority, target, ...params] = content;
      const canonicalPriority = integer(priority, `${type} priority`, 0, 65535);
      if (canonicalPriority === 0 && params.length > 0) {
        throw new ContentError(`${type} parameters are not allowed in AliasMode (priority 0)`);
      }
      return [canonicalPriority, hostName(target, `${type} target`, { root: true }), ...parseParams(params, type)];
    },
    toText(content) {
      const [priority, target, ...params] = content;
      return [String(priority), fullyQualified(String(target)), ...paramsToText(params)].join(' ');
    },
    fromText(tokens, origin) {
      const [priority, target, ...params] = tokens;
      if (priority === undefined || target === undefined) {
        throw new ContentError(`${type} zone-file data must start with priority and target, got ${tokens.length} element${tokens.length === 1 ? '' : 's'}`);
      }
      return [priority.value, nameFromText(target.value, origin), ...paramsFromText(params)];
    },
    toWire(content) {
      const [priority, target, ...params] = content;
      return Buffer.concat([uint16(Number(priority)), wireName(String(target)), paramsToWire(params)]);
    },
  };
}
