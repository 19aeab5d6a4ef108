// A request as ModSecurity's variables see it: collections of named values (ARGS, REQUEST_HEADERS,
// REQUEST_COOKIES, FILES, ...) and single values (REQUEST_URI, REQUEST_METHOD, ...), all byte strings
// (latin1: one character per byte, as ModSecurity's C strings). Query and urlencoded bodies are
// URL-decoded once, as ModSecurity does; JSON bodies are flattened to `json.a.b` names, arrays to
// `json.list.array_0`; multipart bodies give their fields to ARGS_POST and file names to FILES.
// Every value but the per-request ones (the request id, the time) carries its memo (value-memo.ts):
// what a browser sends on every request (header and cookie names and values, the method, argument
// names) from the rule set's stable memo; the target, argument values and the body, which repeat
// less, from its volatile one, so that they cannot evict the others; the client's address from a
// store of its own, so that a flood from many addresses evicts only addresses. A head seen before
// brings its collections made, from its view (head-view.ts).
import { headKey, type HeadFields, type HeadView } from './head-view.ts';
import type { RepeatStore } from './repeat-store.ts';
import type { ValueMemos, ValueMemo } from './value-memo.ts';

export interface Field {
  /** The name within its collection (`q` of ARGS:q); '' for a single value. */
  name: string;
  value: string;
  /** The engine's cache for this request: the value through each transformation chain node (engine.ts). */
  transformed?: string[];
  /** What the engine found in the value (value-memo.ts): shared by the requests that send it for a header or cookie. */
  memo?: ValueMemo;
}

/** What the WAF needs of a request. */
export interface WafRequest {
  method: string;
  /** The request target as sent. */
  url: string;
  /** `HTTP/1.1`, `HTTP/2.0`. */
  protocol: string;
  /** Flat name, value list; names in lower case. */
  headers: string[];
  /** The header lines as the client sent them, which `headers` was parsed from (HTTP/1): the key of the request's head (head-view.ts). */
  headerBlock?: string;
  client: string;
  /** The inspected part of the body (all of it when shorter than the WAF's body limit). */
  body: Buffer;
  /** A request id, for UNIQUE_ID. */
  id: string;
}

/** Each collection's fields by its name (an object of one shape for every request: its reads are cheaper than a Map's). */
export type Collections = Readonly<Record<string, Field[] | undefined>>;

/** Variables the engine sets while it runs (TX, MATCHED_*): what they hold is not the request's. */
export const engineCollections: ReadonlySet<string> = new Set(['TX', 'MATCHED_VAR', 'MATCHED_VAR_NAME', 'MATCHED_VARS', 'MATCHED_VARS_NAMES']);

/** A hex digit's value, or -1. */
function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  const lower = c | 0x20;
  return lower >= 0x61 && lower <= 0x66 ? lower - 0x57 : -1;
}

/**
 * An argument URL-decoded as ModSecurity does: `+` a space, `%XX` its byte, any other `%` as it is.
 * (A loop, not two regex replaces with a callback per escape: every argument of every request goes through it.)
 */
function urlDecodeArg(s: string): string {
  if (s.indexOf('%') < 0 && s.indexOf('+') < 0) return s;
  let out = '';
  let from = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x2b) {
      out += `${s.slice(from, i)} `;
      from = i + 1;
    } else if (c === 0x25 && i + 2 < s.length) {
      const high = hexValue(s.charCodeAt(i + 1));
      const low = hexValue(s.charCodeAt(i + 2));
      if (high < 0 || low < 0) continue;
      out += s.slice(from, i) + String.fromCharCode(high * 16 + low);
      from = i + 3;
      i += 2;
    }
  }
  return out + s.slice(from);
}

/** `a=1&b=2` as ModSecurity's ARGS: split on `&`, then the first `=`, both sides URL-decoded. */
function urlencodedArgs(text: string): Field[] {
  const out: Field[] = [];
  if (text === '') return out;
  for (const pair of text.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    out.push(eq < 0 ? { name: urlDecodeArg(pair), value: '' } : { name: urlDecodeArg(pair.slice(0, eq)), value: urlDecodeArg(pair.slice(eq + 1)) });
  }
  return out;
}

/** UTF-16 text (JSON's) back to its UTF-8 bytes as a byte string. */
const utf8Bytes = (s: string): string => Buffer.from(s, 'utf8').toString('latin1');

/** At most this deep: JSON nested deeper is not walked further (its text is still in REQUEST_BODY). */
const maxJsonDepth = 32;

function flattenJson(value: unknown, name: string, out: Field[], depth: number): void {
  if (depth > maxJsonDepth) return;
  if (Array.isArray(value)) {
    value.forEach((item: unknown, i) => flattenJson(item, `${name}.array_${String(i)}`, out, depth + 1));
  } else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) flattenJson(item, `${name}.${utf8Bytes(key)}`, out, depth + 1);
  } else if (typeof value === 'string') out.push({ name, value: utf8Bytes(value) });
  else out.push({ name, value: typeof value === 'number' || typeof value === 'boolean' ? String(value) : '' });
}

interface MultipartParts {
  args: Field[];
  files: Field[];
  partHeaders: Field[];
}

/** A multipart/form-data body's parts: fields to ARGS, files' names to FILES (their content is not inspected). */
function multipart(body: string, boundary: string): MultipartParts {
  const parts: MultipartParts = { args: [], files: [], partHeaders: [] };
  const delimiter = `--${boundary}`;
  const pieces = body.split(delimiter);
  for (const piece of pieces.slice(1)) {
    if (piece.startsWith('--')) break;
    const headEnd = piece.indexOf('\r\n\r\n');
    if (headEnd < 0) continue;
    const head = piece.slice(0, headEnd);
    let content = piece.slice(headEnd + 4);
    if (content.endsWith('\r\n')) content = content.slice(0, -2);
    const disposition = /content-disposition:[^\r\n]*/i.exec(head)?.[0] ?? '';
    const name = /\bname="([^"]*)"/i.exec(disposition)?.[1] ?? /\bname=([^;\s]+)/i.exec(disposition)?.[1] ?? '';
    const filename = /\bfilename="([^"]*)"/i.exec(disposition)?.[1] ?? /\bfilename=([^;\s]+)/i.exec(disposition)?.[1];
    for (const line of head.split('\r\n')) if (line !== '') parts.partHeaders.push({ name, value: line });
    if (filename === undefined) parts.args.push({ name, value: content });
    else parts.files.push({ name, value: filename });
  }
  return parts;
}

/** A rule set's memos (rule-set.ts). */
export interface RequestMemos {
  stable: ValueMemos;
  volatile: ValueMemos;
  /** Requests' heads (head-view.ts). */
  heads: RepeatStore<HeadView>;
  /** Clients' addresses (REMOTE_ADDR). */
  addresses: ValueMemos;
}

/**
 * Of a collection's values (arguments, headers, cookies, ...), only the first this many are looked
 * up in the memos: a request with thousands of arguments would otherwise spend its time in the
 * stores before its inspection can be stopped, and evict thousands of what others sent.
 */
const memoizedPerCollection = 64;

/** The memo of the `index`th value of a collection. */
const memoOf = (memos: ValueMemos, value: string, index: number): ValueMemo | undefined => (index < memoizedPerCollection ? memos.of(value) : undefined);

/** `a=1; b=2` as REQUEST_COOKIES. */
function cookies(header: string, memos: ValueMemos): Field[] {
  const out: Field[] = [];
  for (const part of header.split(';')) {
    const trimmed = part.trim();
    if (trimmed === '') continue;
    const eq = trimmed.indexOf('=');
    const name = eq < 0 ? trimmed : trimmed.slice(0, eq);
    const value = eq < 0 ? '' : trimmed.slice(eq + 1);
    out.push({ name, value, memo: memoOf(memos, value, out.length) });
  }
  return out;
}

const one = (value: string, memos?: ValueMemos): Field[] => [{ name: '', value, memo: memos?.of(value) }];
/** A collection's names as values. */
const names = (fields: Field[], memos: ValueMemos): Field[] => fields.map((f, i) => ({ name: f.name, value: f.name, memo: memoOf(memos, f.name, i) }));

/** The body's processor and what it found; a body that does not parse as its type leaves REQBODY_ERROR set. */
function bodyArgs(contentType: string, body: string): { processor: string; args: Field[]; parts: MultipartParts | undefined; error: boolean } {
  const type = contentType.toLowerCase();
  if (type.startsWith('application/x-www-form-urlencoded')) return { processor: 'URLENCODED', args: urlencodedArgs(body), parts: undefined, error: false };
  if (/^application\/(?:[a-z0-9.+-]*\+)?json/.test(type)) {
    const args: Field[] = [];
    try {
      flattenJson(JSON.parse(Buffer.from(body, 'latin1').toString('utf8')), 'json', args, 0);
      return { processor: 'JSON', args, parts: undefined, error: false };
    } catch {
      return { processor: 'JSON', args, parts: undefined, error: true };
    }
  }
  const boundary = /^multipart\/form-data.*;\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  if (boundary !== null) {
    const parts = multipart(body, boundary[1] ?? boundary[2] ?? '');
    return { processor: 'MULTIPART', args: parts.args, parts, error: false };
  }
  return { processor: '', args: [], parts: undefined, error: false };
}

/** A request's variables: its collections, and the view of its head they were taken from, when its head is kept (head-view.ts). */
export interface RequestVariables {
  collections: Collections;
  head: HeadView | undefined;
}

/** The head's collections, each value with its memo from the stable store. */
function headFields(req: WafRequest, stable: ValueMemos): HeadFields {
  const headers: Field[] = [];
  for (let i = 0; i < req.headers.length; i += 2) {
    const value = req.headers[i + 1] ?? '';
    headers.push({ name: req.headers[i] ?? '', value, memo: memoOf(stable, value, i / 2) });
  }
  const header = (name: string): string => headers.filter((h) => h.name === name).map((h) => h.value).join(name === 'cookie' ? '; ' : ', ');
  const cookieFields = cookies(header('cookie'), stable);
  return {
    method: one(req.method, stable),
    protocol: one(req.protocol, stable),
    headers,
    headerNames: names(headers, stable),
    cookies: cookieFields,
    cookieNames: names(cookieFields, stable),
    contentType: header('content-type'),
  };
}

/** The view of the request's head, when its head is kept (head-view.ts). */
export function headViewOf(req: WafRequest, memos: RequestMemos): HeadView | undefined {
  const key = headKey(req);
  const view = key === undefined ? undefined : memos.heads.of(key);
  // A header block is the key of the requests sending it with every method and protocol: a view serves the first.
  if (view?.fields !== undefined && (view.fields.method[0]?.value !== req.method || view.fields.protocol[0]?.value !== req.protocol)) return undefined;
  return view;
}

/**
 * The variables that differ between two requests with the same head, target and body: a rule
 * reading one of them may judge them differently (verdict-memo.ts). A variable made here of
 * anything but those must be named here.
 */
export const requestSpecific: ReadonlySet<string> = new Set(['REMOTE_ADDR', 'UNIQUE_ID', 'DURATION']);

/** Every variable of a request the rules may read, but TX and the MATCHED_* ones (the engine's); `view`: its head's (headViewOf). */
export function requestCollections(req: WafRequest, startedAt: number, memos: RequestMemos, view: HeadView | undefined): RequestVariables {
  const { stable, volatile } = memos;
  // A head seen before brings its fields made (head-view.ts); the rest is the request's own.
  const head = view === undefined ? headFields(req, stable) : (view.fields ??= headFields(req, stable));
  const query = req.url.indexOf('?');
  const rawPath = query < 0 ? req.url : req.url.slice(0, query);
  const queryString = query < 0 ? '' : req.url.slice(query + 1);
  const get = urlencodedArgs(queryString);
  const body = req.body.toString('latin1');
  const parsed = bodyArgs(head.contentType, body);
  const args = [...get, ...parsed.args];
  args.forEach((arg, i) => (arg.memo = memoOf(volatile, arg.value, i)));
  const files = parsed.parts?.files ?? [];
  files.forEach((file, i) => (file.memo = memoOf(volatile, file.value, i)));
  const partHeaders = parsed.parts?.partHeaders ?? [];
  partHeaders.forEach((part, i) => (part.memo = memoOf(volatile, part.value, i)));
  // The path from its origin-form: an absolute-form target (http://host/path) is reduced to its path.
  const path = /^[a-z][a-z0-9+.-]*:\/\/[^/]*/i.test(rawPath) ? rawPath.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*/i, '') || '/' : rawPath;
  // ARGS_NAMES holds the same fields as ARGS_GET_NAMES and ARGS_POST_NAMES: each name looked up once.
  const getNames = names(get, stable);
  const postNames = names(parsed.args, stable);
  const uri = one(req.url, volatile);
  const c: Collections = {
    ARGS: args,
    ARGS_NAMES: [...getNames, ...postNames],
    ARGS_GET: get,
    ARGS_GET_NAMES: getNames,
    ARGS_POST: parsed.args,
    ARGS_POST_NAMES: postNames,
    ARGS_COMBINED_SIZE: one(String(args.reduce((n, a) => n + a.name.length + a.value.length, 0)), stable),
    REQUEST_HEADERS: head.headers,
    REQUEST_HEADERS_NAMES: head.headerNames,
    REQUEST_COOKIES: head.cookies,
    REQUEST_COOKIES_NAMES: head.cookieNames,
    REQUEST_METHOD: head.method,
    REQUEST_PROTOCOL: head.protocol,
    REQUEST_URI: uri,
    REQUEST_URI_RAW: uri,
    REQUEST_LINE: one(`${req.method} ${req.url} ${req.protocol}`, volatile),
    REQUEST_FILENAME: one(path, volatile),
    REQUEST_BASENAME: one(path.slice(path.lastIndexOf('/') + 1), volatile),
    QUERY_STRING: one(queryString, volatile),
    REQUEST_BODY: one(body, volatile),
    REQUEST_BODY_LENGTH: one(String(req.body.length), stable),
    REQBODY_PROCESSOR: one(parsed.processor, stable),
    REQBODY_ERROR: one(parsed.error ? '1' : '0', stable),
    FILES: files,
    FILES_NAMES: names(files, stable),
    FILES_COMBINED_SIZE: one('0', stable),
    MULTIPART_PART_HEADERS: partHeaders,
    REMOTE_ADDR: one(req.client, memos.addresses),
    UNIQUE_ID: one(req.id),
    DURATION: one(String(Math.round((performance.now() - startedAt) * 1000))),
    // Persistent collections (IP reputation, sessions) and XML: none kept, so nothing to read.
    XML: noFields,
    IP: noFields,
    GLOBAL: noFields,
    SESSION: noFields,
    USER: noFields,
    GEO: noFields,
    RESOURCE: noFields,
  };
  return { collections: c, head: view };
}

/** What a collection the engine keeps nothing of holds (never written to). */
const noFields: Field[] = [];
