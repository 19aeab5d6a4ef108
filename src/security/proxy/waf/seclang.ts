// The text of ModSecurity's rule language (SecLang) as the Core Rule Set writes it, read into
// directives: lines continued by a trailing backslash are joined, comments dropped, and each
// directive split into its arguments (double-quoted, with \" and \\ inside them, or bare words).
// What the directives mean is rule-set.ts's business.

export interface Directive {
  /** `SecRule`, `SecAction`, `SecMarker`, ... */
  name: string;
  args: string[];
  /** Where it was written, for what is logged about it. */
  file: string;
  line: number;
}

/** Splits one directive line into its words: quoted arguments lose their quotes, `\"` becomes `"`. */
function words(text: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < text.length) {
    while (i < text.length && (text[i] === ' ' || text[i] === '\t')) i++;
    if (i >= text.length) break;
    if (text[i] === '"') {
      let word = '';
      i++;
      while (i < text.length && text[i] !== '"') {
        // Only a quote is escaped by the parser; other backslashes belong to the operator (a regex).
        if (text[i] === '\\' && text[i + 1] === '"') {
          word += '"';
          i += 2;
        } else word += text.charAt(i++);
      }
      i++;
      out.push(word);
    } else {
      const start = i;
      while (i < text.length && text[i] !== ' ' && text[i] !== '\t') i++;
      out.push(text.slice(start, i));
    }
  }
  return out;
}

/** The directives of one configuration file's text. */
export function parseSecLang(text: string, file: string): Directive[] {
  const lines = text.split('\n');
  const out: Directive[] = [];
  let pending = '';
  let startLine = 0;
  for (let n = 0; n < lines.length; n++) {
    const raw = (lines[n] ?? '').replace(/\r$/, '');
    if (pending === '') {
      const trimmed = raw.trimStart();
      if (trimmed === '' || trimmed.startsWith('#')) continue;
      startLine = n + 1;
    }
    if (raw.endsWith('\\')) {
      pending += raw.slice(0, -1);
      continue;
    }
    const whole = (pending + raw).trim();
    pending = '';
    const [name, ...args] = words(whole);
    if (name !== undefined) out.push({ name, args, file, line: startLine });
  }
  return out;
}

/**
 * Splits a rule's action list (`id:1,phase:2,msg:'a, b',t:none`) into name and argument pairs;
 * single quotes protect commas, and are dropped around an argument.
 */
export function parseActions(text: string): { name: string; arg: string | undefined }[] {
  const out: { name: string; arg: string | undefined }[] = [];
  let i = 0;
  while (i < text.length) {
    while (i < text.length && /[\s,]/.test(text[i] ?? '')) i++;
    if (i >= text.length) break;
    let token = '';
    let quoted = false;
    while (i < text.length) {
      const c = text[i] ?? '';
      if (c === "'" && text[i - 1] !== '\\') quoted = !quoted;
      else if (c === ',' && !quoted) break;
      token += c;
      i++;
    }
    const colon = token.indexOf(':');
    const name = (colon < 0 ? token : token.slice(0, colon)).trim();
    let arg = colon < 0 ? undefined : token.slice(colon + 1).trim();
    if (arg !== undefined && arg.length >= 2 && arg.startsWith("'") && arg.endsWith("'")) arg = arg.slice(1, -1);
    out.push({ name, arg });
  }
  return out;
}
