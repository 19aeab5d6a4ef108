// @detectXSS: whether a value, pasted into an HTML page, would run script there. The value is read as
// HTML from where it could land: in the page's text (a tag it opens), among a tag's attributes, and
// as the rest of an attribute value quoted with ", ' or ` (what follows the value's first such
// quote is among the attributes) — and as a URL (a link's href). It matches on what runs script or
// loads it: the tags that do (script, iframe, object, svg, ...), an event handler attribute
// (`onerror=`), a javascript:/vbscript:/data:text/html URL in an attribute or as the whole value,
// a style attribute added by breaking out of a value (CSS overlays, old browsers' expression()), a
// namespace declaration on a tag, and XML's declarations and processing instructions (`<!ENTITY`,
// `<?import`).
// Angle brackets in prose ("a < b", "<3", "<strong> tag") and `=` in text pass. libinjection (the
// library ModSecurity uses) was the model for the approach; the scanner and its lists are this
// project's own.

/** Tags that run or load script, or change where the page's links and scripts come from. */
const dangerousTags = new Set([
  'script', 'iframe', 'frame', 'frameset', 'object', 'embed', 'applet', 'base', 'link', 'meta', 'style', 'svg', 'math',
  'xml', 'import', 'isindex', 'xss',
]);

/** DOM events (`on` + the name is the handler attribute): what a value among attributes must name to count. */
const events = new Set(
  (
    'abort afterprint animationend animationiteration animationstart auxclick beforecopy beforecut beforeinput ' +
    'beforepaste beforeprint beforeunload begin blur bounce canplay canplaythrough change click close contextmenu ' +
    'copy cuechange cut dblclick drag dragend dragenter dragleave dragover dragstart drop durationchange emptied end ' +
    'ended error finish focus focusin focusout formdata fullscreenchange hashchange input invalid keydown keypress ' +
    'keyup load loadeddata loadedmetadata loadend loadstart message mousedown mouseenter mouseleave mousemove ' +
    'mouseout mouseover mouseup mousewheel offline online pagehide pageshow paste pause play playing pointercancel ' +
    'pointerdown pointerenter pointerleave pointermove pointerout pointerover pointerrawupdate pointerup popstate ' +
    'progress propertychange ratechange readystatechange repeat reset resize scroll scrollend search seeked seeking ' +
    'select selectionchange selectstart show stalled start storage submit suspend timeupdate toggle touchcancel ' +
    'touchend touchmove touchstart transitioncancel transitionend transitionrun transitionstart unload volumechange ' +
    'waiting webkitanimationend webkitanimationiteration webkitanimationstart webkittransitionend wheel'
  ).split(' '),
);

/** Attributes whose value is a URL the browser loads or navigates to. */
const urlAttributes = new Set(['href', 'src', 'action', 'formaction', 'data', 'background', 'poster', 'xlink:href', 'codebase', 'dynsrc', 'lowsrc', 'srcdoc', 'content', 'from', 'to', 'values', 'by']);

/** URL schemes that run script (`data:` only with a type that holds script). */
const scriptSchemes = ['javascript:', 'vbscript:', 'livescript:', 'data:text/html', 'data:image/svg', 'data:application/xhtml', 'data:text/xml'];

/** CSS that runs script or pulls in other documents (old browsers, still in the wild). */
const scriptCss = /expression\s*\(|url\s*\(|behaviou?r\s*:|-moz-binding|@import|javascript:/i;

const isSpace = (c: number): boolean => c === 0x20 || (c >= 0x09 && c <= 0x0d);
const isLetter = (c: number): boolean => ((c | 0x20) >= 0x61 && (c | 0x20) <= 0x7a);

/**
 * Whether text[from, to) starts with a script URL: browsers skip leading whitespace and control
 * characters and ignore tabs and line breaks inside the scheme (`java\tscript:`). Returns the scheme.
 */
function scriptUrl(text: string, from: number, to: number): string | undefined {
  let i = from;
  while (i < to && text.charCodeAt(i) <= 0x20) i++;
  const c = text.charCodeAt(i) | 0x20;
  if (c !== 0x6a && c !== 0x76 && c !== 0x6c && c !== 0x64) return undefined; // j, v, l, d
  for (const scheme of scriptSchemes) {
    let j = i;
    let k = 0;
    while (k < scheme.length && j < to) {
      const d = text.charCodeAt(j);
      if (d === 0x09 || d === 0x0a || d === 0x0d) {
        j++;
        continue;
      }
      if ((d | 0x20) !== scheme.charCodeAt(k) && d !== scheme.charCodeAt(k)) break;
      j++;
      k++;
    }
    // Something must follow the scheme: "javascript: the good parts" is a book.
    if (k === scheme.length && j < to && !isSpace(text.charCodeAt(j))) return scheme;
  }
  return undefined;
}

/** Where a name (tag or attribute) starting at i ends. */
function nameEnd(text: string, i: number): number {
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (isSpace(c) || c === 0x2f || c === 0x3e || c === 0x3d) break;
    i++;
  }
  return i;
}

/**
 * An attribute's verdict: what runs script (`onerror=`), or undefined. `inTag`: the value opened the
 * tag itself, so any `on…` attribute is a handler; otherwise the value got among a tag's attributes
 * by ending another value, where only known events count and any style (quoted, or CSS-like) is an
 * injection too.
 */
function judgeAttribute(text: string, name: [number, number], value: [number, number, quoted: boolean], inTag: boolean): string | undefined {
  const [ns, ne] = name;
  const attribute = text.slice(ns, Math.min(ne, ns + 32)).toLowerCase();
  // A namespace declaration in a tag the value opened can make it an SVG or XHTML script element.
  if (inTag && (attribute === 'xmlns' || attribute.startsWith('xmlns:'))) return `${attribute}=`;
  if (attribute.length > 2 && attribute.startsWith('on')) {
    const event = attribute.slice(2);
    if (events.has(event) || (inTag && /^[a-z]{3,}$/.test(event))) return `${attribute}=`;
  }
  const [vs, ve, quoted] = value;
  if (urlAttributes.has(attribute) || attribute.endsWith(':href')) {
    const scheme = scriptUrl(text, vs, ve);
    if (scheme !== undefined) return `${attribute}=${scheme}`;
    if (attribute === 'srcdoc' && text.slice(vs, ve).includes('<')) return 'srcdoc=';
  }
  if (attribute === 'style') {
    const css = text.slice(vs, ve);
    if (scriptCss.test(css) || (!inTag && (quoted || css.includes(':') || css.includes('(')))) return 'style=';
  }
  return undefined;
}

/**
 * Reads a tag's attributes from `i` until its `>`, judging each; returns the verdict, or the index
 * after the `>` (the text goes on) as a number.
 */
function attributes(text: string, i: number, inTag: boolean): string | number {
  for (;;) {
    while (i < text.length && (isSpace(text.charCodeAt(i)) || text.charCodeAt(i) === 0x2f)) i++;
    if (i >= text.length) return i;
    if (text.charCodeAt(i) === 0x3e) return i + 1;
    const ns = i;
    // A name may start with `=` (HTML takes it as a letter there).
    i = nameEnd(text, i + 1);
    const ne = i;
    let j = i;
    while (j < text.length && isSpace(text.charCodeAt(j))) j++;
    if (text.charCodeAt(j) !== 0x3d) continue;
    j++;
    while (j < text.length && isSpace(text.charCodeAt(j))) j++;
    const q = text.charCodeAt(j);
    let vs: number;
    let ve: number;
    const quoted = q === 0x22 || q === 0x27 || q === 0x60;
    if (quoted) {
      vs = j + 1;
      const close = text.indexOf(String.fromCharCode(q), vs);
      ve = close < 0 ? text.length : close;
      i = close < 0 ? text.length : close + 1;
    } else {
      vs = j;
      ve = j;
      while (ve < text.length && !isSpace(text.charCodeAt(ve)) && text.charCodeAt(ve) !== 0x3e) ve++;
      i = ve;
    }
    const verdict = judgeAttribute(text, [ns, ne], [vs, ve, quoted], inTag);
    if (verdict !== undefined) return verdict;
  }
}

/** Reads text from `i` as a page's text: tags it opens, and their attributes. */
function pageText(text: string, i: number): string | undefined {
  for (;;) {
    const lt = text.indexOf('<', i);
    if (lt < 0 || lt + 1 >= text.length) return undefined;
    const c = text.charCodeAt(lt + 1);
    // `<!DOCTYPE`, `<!ENTITY`, `<?xml`, `<?import`: markup declarations and processing instructions
    // (external entities, IE's behaviours), never in prose.
    if ((c === 0x21 || c === 0x3f) && isLetter(text.charCodeAt(lt + 2))) return text.slice(lt, nameEnd(text, lt + 2)).slice(0, 16);
    if (!isLetter(c)) {
      i = lt + 1;
      continue;
    }
    const end = nameEnd(text, lt + 1);
    const tag = text.slice(lt + 1, Math.min(end, lt + 17)).toLowerCase();
    // A namespace prefix (`<x:script>`) is still the tag.
    const local = tag.slice(tag.indexOf(':') + 1);
    if (dangerousTags.has(local)) return `<${tag}`;
    const after = attributes(text, end, true);
    if (typeof after === 'string') return after;
    i = after;
  }
}

/** The part that runs script (`<script`, `onerror=`, `href=javascript:`), or undefined. */
export function detectHtmlInjection(value: string): string | undefined {
  if (value.includes(':')) {
    const scheme = scriptUrl(value, 0, value.length);
    if (scheme !== undefined) return scheme;
  }
  if (value.includes('<')) {
    const found = pageText(value, 0);
    if (found !== undefined) return found;
  }
  if (!value.includes('=')) return undefined;
  // Among a tag's attributes, or at the end of an unquoted value (the same reading: the value's first
  // word is read as an attribute name, harmlessly); then at the end of a quoted value.
  for (const quote of ['', '"', "'", '`']) {
    const from = quote === '' ? 0 : value.indexOf(quote) + 1;
    if (quote !== '' && from === 0) continue;
    const found = attributes(value, from, false);
    if (typeof found === 'string') return found;
    if (found < value.length) {
      const inText = pageText(value, found);
      if (inText !== undefined) return inText;
    }
  }
  return undefined;
}
