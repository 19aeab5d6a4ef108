// TXT: content is one text; on the wire it is split into character-strings of at most 255 octets.
import { text } from './fields.ts';
import { characterString } from './octets.ts';
import { quoteOctets, textFromPresentation } from './presentation-text.ts';
import { ContentError, type ContentValue, type RecordType } from './record-type.ts';

const chunkOctets = 255;
// RDATA holds at most 65535 octets, each string costing one length octet on top of its own: 255 full
// strings and one of 254 octets.
const maxTextOctets = 65279;

/**
 * The text's UTF-8 octets cut into strings of at most 255. Cut on octets, so a multi-byte character
 * may straddle two of them; an empty text is still one (empty) string.
 */
function chunks(text: ContentValue | undefined): Buffer[] {
  const octets = Buffer.from(String(text), 'utf8');
  const count = Math.max(1, Math.ceil(octets.length / chunkOctets));
  return Array.from({ length: count }, (_, index) => octets.subarray(index * chunkOctets, (index + 1) * chunkOctets));
}

export const txt: RecordType = {
  type: 'TXT',
  code: 16,
  parse(content) {
    if (content.length !== 1) throw new ContentError(`TXT content must be [text], got ${content.length} elements`);
    const value = text(content[0], 'TXT text');
    const octets = Buffer.byteLength(value, 'utf8');
    if (octets > maxTextOctets) {
      throw new ContentError(`TXT text is ${octets} octets in UTF-8; at most ${maxTextOctets} fit in one record`);
    }
    return [value];
  },
  toText(content) {
    return chunks(content[0]).map(quoteOctets).join(' ');
  },
  fromText(tokens) {
    if (tokens.length === 0) throw new ContentError('TXT text is missing: a TXT record holds at least one string');
    // Decoded after joining: a character split across two strings is only valid UTF-8 once whole.
    return [textFromPresentation(tokens.map((token) => token.value).join(''))];
  },
  toWire(content) {
    return Buffer.concat(chunks(content[0]).map(characterString));
  },
};
