// Text in zone-file presentation form (TXT strings, CAA values, SVCB parameter values).
//
// Contract with the zone-file tokenizer: a ZoneToken's value is a "binary string", one character per
// octet (latin1): each \DDD became the character with code DDD, and text written literally in the file
// became its UTF-8 octets. textFromPresentation turns such a value back into text.

/** Quoted string: `"` and `\` escaped, octets outside printable ASCII as \DDD. */
export function quoteOctets(octets: Uint8Array): string {
  let quoted = '"';
  for (const octet of octets) {
    if (octet === 0x22 || octet === 0x5c) quoted += `\\${String.fromCharCode(octet)}`;
    else if (octet >= 0x20 && octet <= 0x7e) quoted += String.fromCharCode(octet);
    else quoted += `\\${String(octet).padStart(3, '0')}`;
  }
  return `${quoted}"`;
}

export function quoteText(text: string): string {
  return quoteOctets(Buffer.from(text, 'utf8'));
}

// ignoreBOM: a leading U+FEFF is part of the text, not a marker to drop.
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * A token value → text: octets that form valid UTF-8 are decoded; others are kept one character per
 * octet. A value with characters beyond U+00FF is not a binary string and is kept as it is.
 */
export function textFromPresentation(value: string): string {
  if (/[\u0100-\uffff]/.test(value)) return value;
  try {
    return utf8.decode(Buffer.from(value, 'latin1'));
  } catch {
    return value;
  }
}
