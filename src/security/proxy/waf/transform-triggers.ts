// What makes each transformation change a value other than in letter case: the bytes it reacts to.
// A value holding none of a chain's triggers comes out of the chain as it went in, up to case, so
// the prefilter (whose scan ignores case) can look at the value itself instead of running the
// chain (engine.ts). Conservative by design: a trigger present means "may change", nothing more;
// a transformation not listed here changes everything (sha1, base64Decode, length, ...).

const percent = 1 << 0; // % and + (URL decoding)
const ampersand = 1 << 1; // HTML entities
const backslash = 1 << 2; // JS and CSS escapes, Windows paths, cmdLine
const nul = 1 << 3;
const space = 1 << 4;
const otherSpace = 1 << 5; // \t \n \v \f \r and 0xa0
const slash = 1 << 6;
const dot = 1 << 7;
const commentMark = 1 << 8; // * # - < !
const shellMark = 1 << 9; // " ' ^ , ;
const utf8Lead = 1 << 10; // 0xc2-0xf4: a UTF-8 sequence may start here
/** Every value has it: what a transformation that changes any value (base64Decode, sha1) reacts to. */
const always = 1 << 11;
const everything = 0xfff;

const byByte = new Uint16Array(256);
byByte[0x25] = percent;
byByte[0x2b] = percent;
byByte[0x26] = ampersand;
byByte[0x5c] = backslash;
byByte[0x00] = nul;
byByte[0x20] = space;
for (const c of [0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0xa0]) byByte[c] = otherSpace;
byByte[0x2f] = slash;
byByte[0x2e] = dot;
for (const c of '*#-<!') byByte[c.charCodeAt(0)] = commentMark;
for (const c of '"\'^,;') byByte[c.charCodeAt(0)] = shellMark;
for (let c = 0xc2; c <= 0xf4; c++) byByte[c] = utf8Lead;

/** The triggers present in a value (bytes past 0xff, which byte strings do not hold, trigger everything). */
export function triggersIn(value: string): number {
  let found = always;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    found |= c < 256 ? (byByte[c] as number) : everything;
  }
  return found;
}

const whitespace = space | otherSpace;
const byName: ReadonlyMap<string, number> = new Map([
  ['lowercase', 0],
  ['uppercase', 0],
  ['urldecode', percent],
  ['urldecodeuni', percent],
  ['htmlentitydecode', ampersand],
  ['jsdecode', backslash],
  ['cssdecode', backslash],
  ['removenulls', nul],
  ['replacenulls', nul],
  ['compresswhitespace', whitespace],
  ['removewhitespace', whitespace],
  ['trim', whitespace],
  ['trimleft', whitespace],
  ['trimright', whitespace],
  ['replacecomments', slash],
  ['removecomments', slash | commentMark],
  ['removecommentschar', slash | commentMark],
  ['cmdline', backslash | shellMark | whitespace],
  ['normalizepath', slash | dot],
  ['normalisepath', slash | dot],
  ['normalizepathwin', slash | dot | backslash],
  ['normalisepathwin', slash | dot | backslash],
  ['utf8tounicode', utf8Lead],
]);

/** The triggers of the transformation `t:name` (lower case). */
export const triggersOf = (name: string): number => byName.get(name) ?? everything;
