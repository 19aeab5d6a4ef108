// The SQL tokenizer behind @detectSQLi (sql-injection.ts): reads the start of a value as SQL would,
// in one of three contexts — the value as it is (pasted where a number goes), or as the rest of a
// string the application opened with a single or a double quote — and folds what it reads into a
// short shape, one letter a token: `q&s=s` for `x' or 'a'='a` read after a single quote. Only the
// first tokens matter (an injection has to work from where the value starts), so at most `maxTokens`
// are read, whatever the value's length: the cost per value is bounded and small.
//
// The letters (the judge's vocabulary):
//   q  the string the application opened, closed by the value (quote contexts only; Q when it holds
//      whitespace: prose rather than a field value)
//   s  a string literal      n  a number or a literal (NULL, TRUE)      v  a variable (@x, @@version)
//   w  a word: an identifier, or a keyword that means nothing alone
//   &  AND, OR, XOR, &&, ||  =  a comparison symbol      l  a comparison word (LIKE, IN, IS, ...)
//   o  an arithmetic operator that could not be folded (`'+sleep(1)`)
//   f  a SQL function called (`ascii(`)      z  a call that makes the database wait, read files or
//      run commands (`sleep(`, `benchmark(`, `waitfor delay`)
//   U  UNION [ALL|DISTINCT]   S  SELECT   F  FROM   W  WHERE
//   K  a clause taking a value: ORDER BY, GROUP BY, HAVING, LIMIT, INTO OUTFILE
//   X  a statement: DROP TABLE, INSERT INTO, DELETE FROM, UPDATE, EXEC, SHUTDOWN, DECLARE, ...
//   ( ) , ;   #  a comment running to the end   ?  any other punctuation

export const ctxNone = 0;
export const ctxSingle = 0x27;
export const ctxDouble = 0x22;

/** Tokens kept per context: the judge looks at the start only. */
const maxTokens = 16;

// Letters, by their char codes: the shape is built from them.
const kQuote = 0x71; // q
const kQuoteProse = 0x51; // Q
const kString = 0x73; // s
const kNumber = 0x6e; // n
const kVariable = 0x76; // v
const kWord = 0x77; // w
const kLogic = 0x26; // &
const kCompare = 0x3d; // =
const kCompareWord = 0x6c; // l
const kArith = 0x6f; // o
const kFunction = 0x66; // f
const kDanger = 0x7a; // z
const kUnion = 0x55; // U
const kSelect = 0x53; // S
const kFrom = 0x46; // F
const kWhere = 0x57; // W
const kClause = 0x4b; // K
const kStatement = 0x58; // X
const kOpen = 0x28; // (
const kClose = 0x29; // )
const kComma = 0x2c; // ,
const kSemicolon = 0x3b; // ;
const kComment = 0x23; // #
const kOther = 0x3f; // ?
// Read but never kept: NOT (a negation changes no shape) and inline comments.
const kNot = 0x21; // !
const kSkip = 0;

/** Kinds a judged shape needs at least one of: without them, a value is words, numbers and punctuation. */
const triggers = new Uint8Array(128);
for (const k of [kLogic, kCompare, kCompareWord, kFunction, kDanger, kUnion, kSelect, kFrom, kClause, kStatement, kSemicolon, kComment, kArith]) triggers[k] = 1;

/** What a word is alone, and the words that, following it, make one token of another kind with it. */
interface WordKind {
  kind: number;
  /** Following words that fold into `phraseKind` (ORDER BY, UNION ALL, DROP TABLE). */
  next?: ReadonlySet<string>;
  phraseKind?: number;
  /** A function: the kind it has when `(` follows it. */
  call?: number;
  /** The call may have whitespace before its `(` (names no prose uses). */
  spaced?: boolean;
}

/**
 * The table, open-addressed by a hash of the lower-case name: a word of the value is looked up
 * without slicing it out (no allocation per word).
 */
const names: string[] = [];
const entries: WordKind[] = [];
const slotBits = 10;
const slots = new Int32Array(1 << slotBits);
const define = (list: string, entry: WordKind) => {
  for (const name of list.split(' ')) {
    let slot = hashLower(name, 0, name.length);
    while (slots[slot] !== 0 && names[(slots[slot] ?? 0) - 1] !== name) slot = (slot + 1) & (slots.length - 1);
    if (slots[slot] === 0) {
      names.push(name);
      entries.push(entry);
      slots[slot] = names.length;
    } else entries[(slots[slot] ?? 0) - 1] = entry;
  }
};
define('and or xor', { kind: kLogic });
define('not', { kind: kNot, next: new Set(['like', 'rlike', 'regexp', 'in', 'between', 'similar']), phraseKind: kCompareWord });
define('like rlike regexp between in glob match', { kind: kCompareWord });
define('is', { kind: kCompareWord, next: new Set(['not']), phraseKind: kCompareWord });
define('sounds', { kind: kWord, next: new Set(['like']), phraseKind: kCompareWord });
define('div mod', { kind: kArith });
define('null true false', { kind: kNumber });
define('union', { kind: kUnion, next: new Set(['all', 'distinct']), phraseKind: kUnion });
define('select', { kind: kSelect });
define('from', { kind: kFrom });
define('where', { kind: kWhere });
define('having limit', { kind: kClause });
define('order group', { kind: kWord, next: new Set(['by']), phraseKind: kClause });
define('into', { kind: kWord, next: new Set(['outfile', 'dumpfile']), phraseKind: kClause });
define('procedure', { kind: kWord, next: new Set(['analyse']), phraseKind: kClause });
define('drop create alter truncate', {
  kind: kWord,
  next: new Set(['table', 'database', 'schema', 'view', 'procedure', 'function', 'user', 'index', 'trigger', 'column', 'login']),
  phraseKind: kStatement,
});
define('insert replace', { kind: kWord, next: new Set(['into']), phraseKind: kStatement, call: kFunction });
define('delete', { kind: kWord, next: new Set(['from']), phraseKind: kStatement });
define('update exec execute shutdown declare grant revoke', { kind: kStatement });
define('waitfor', { kind: kWord, next: new Set(['delay', 'time']), phraseKind: kDanger });
// SQL functions an injection reads data or builds values with; `(` must follow at once (prose
// writes "if (" with a space, SQL writes "if(").
define(
  'ascii char chr concat concat_ws substring substr mid left right length len count version database schema user ' +
    'current_user system_user session_user cast convert if ifnull isnull nullif coalesce hex unhex md5 sha1 ord ' +
    'lower upper group_concat make_set elt floor rand row name_const db_name user_name host_name object_name ' +
    'col_name table_name instr locate position reverse trim char_length xmltype exp json_extract json_keys ' +
    'string_agg array_agg to_char cstr unicode nchar pg_client_encoding current_database quote_ident',
  { kind: kWord, call: kFunction },
);
// Calls that make the database wait (time-based blind injection), read files, run commands or leak
// data through errors.
define('sleep benchmark randomblob get_lock extractvalue updatexml', { kind: kWord, call: kDanger });
define(
  'pg_sleep pg_sleep_for pg_read_file pg_ls_dir lo_import load_file sys_eval sys_exec xp_dirtree xp_regread ' +
    'receive_message get_host_address get_host_name utl_http utl_inaddr dbms_xmlgen dbms_lock dbms_pipe',
  { kind: kWord, call: kDanger, spaced: true },
);
// Procedures that run commands, called without parentheses.
define('xp_cmdshell sp_executesql sp_oacreate', { kind: kDanger, spaced: true });

/** The longest word looked up: longer ones are identifiers. */
const maxWordLength = 32;

// Character classes, for bytes (values are byte strings); everything from 0x80 up is a word character.
const cSpace = 1;
const cWord = 2;
const cDigit = 4;
const classes = new Uint8Array(256);
for (const c of [0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x20, 0xa0]) classes[c] = cSpace;
for (let c = 0x30; c <= 0x39; c++) classes[c] = cWord | cDigit;
for (let c = 0x41; c <= 0x5a; c++) classes[c] = cWord;
for (let c = 0x61; c <= 0x7a; c++) classes[c] = cWord;
for (let c = 0x80; c <= 0xff; c++) if (c !== 0xa0) classes[c] = cWord;
classes[0x5f] = cWord; // _
classes[0x24] = cWord; // $
const classOf = (c: number): number => (c < 256 ? (classes[c] ?? 0) : cWord);

/** One context's tokens, reused from call to call (the WAF inspects one value at a time). */
export class SqlTokens {
  readonly kinds = new Uint8Array(maxTokens);
  count = 0;
  /** A token of a kind some judged shape needs was read. */
  triggered = false;

  #text = '';
  #pos = 0;
  /** A binary operator after a value, waiting for its right side: `1+1` folds into one value. */
  #pendingArith = false;

  /** Reads `text` in `context` (ctxNone, ctxSingle, ctxDouble); false when the context does not apply. */
  read(text: string, context: number): boolean {
    this.count = 0;
    this.triggered = false;
    this.#text = text;
    this.#pos = 0;
    this.#pendingArith = false;
    if (context !== ctxNone) {
      // The value continues a string: it applies only when the value closes it.
      const end = this.#stringEnd(0, context);
      if (end >= text.length) return false;
      let spaced = false;
      for (let i = 0; i < end - 1 && !spaced; i++) spaced = classOf(text.charCodeAt(i)) === cSpace;
      this.#push(spaced ? kQuoteProse : kQuote);
      this.#pos = end;
    }
    while (this.count < maxTokens && this.#pos < text.length) {
      const kind = this.#next();
      if (kind === kSkip) continue;
      this.#fold(kind);
      if (kind === kComment) break;
    }
    return true;
  }

  /** The shape: the kept tokens' letters. */
  shape(): string {
    return String.fromCharCode(...this.kinds.subarray(0, this.count));
  }

  #push(kind: number): void {
    this.kinds[this.count++] = kind;
    if (kind < 128 && triggers[kind] === 1) this.triggered = true;
  }

  #last(): number {
    return this.count === 0 ? kSkip : (this.kinds[this.count - 1] ?? kSkip);
  }

  /**
   * Keeps a token, folding what changes nothing: NOT; a sign before a value; `1+1` and `'a'||'b'`
   * into one value; strings side by side into one.
   */
  #fold(kind: number): void {
    const last = this.#last();
    const operand = kind === kNumber || kind === kString || kind === kVariable || kind === kWord;
    if (kind === kNot) return;
    if (kind === kArith) {
      // A binary operator waits for its right side; after a quote, a `)` or SELECT it stays (`'+sleep(`,
      // `select *`); anywhere else it is a sign, and folds into what follows.
      if (last === kNumber || last === kString || last === kVariable || last === kWord) this.#pendingArith = true;
      else if (last === kQuote || last === kQuoteProse || last === kClose || last === kSelect) this.#push(kArith);
      return;
    }
    if (this.#pendingArith) {
      this.#pendingArith = false;
      if (operand) return; // `1+1`: the left operand stands for both
      this.#push(kArith);
    }
    if (operand && kind === kString && last === kString) return;
    this.#push(kind);
  }

  /** Reads one token at #pos; returns its kind (kSkip for whitespace and inline comments). */
  #next(): number {
    const text = this.#text;
    let i = this.#pos;
    const c = text.charCodeAt(i);
    const cls = classOf(c);
    if (cls === cSpace) {
      while (i < text.length && classOf(text.charCodeAt(i)) === cSpace) i++;
      this.#pos = i;
      return kSkip;
    }
    const c1 = i + 1 < text.length ? text.charCodeAt(i + 1) : -1;
    if (cls & cDigit || (c === 0x2e && c1 >= 0 && classOf(c1) & cDigit)) {
      this.#pos = this.#numberEnd(i);
      return kNumber;
    }
    if (cls & cWord) return this.#word(i);
    switch (c) {
      case 0x27: // '
      case 0x22: // "
        this.#pos = this.#stringEnd(i + 1, c);
        return kString;
      case 0x60: // ` quoted identifier
        this.#pos = this.#stringEnd(i + 1, c);
        return kWord;
      case 0x40: {
        // @var, @@global: a variable; a lone @ (an e-mail address's) is punctuation.
        let j = i + 1;
        if (c1 === 0x40) j++;
        const start = j;
        while (j < text.length && classOf(text.charCodeAt(j)) & cWord) j++;
        this.#pos = j === start ? i + 1 : j;
        return j === start ? kOther : kVariable;
      }
      case 0x23: // # comment
        this.#pos = text.length;
        return kComment;
      case 0x2d: // -- comment, or minus
        if (c1 === 0x2d) {
          this.#pos = text.length;
          return kComment;
        }
        this.#pos = i + 1;
        return kArith;
      case 0x2f: // /* comment */, or division
        if (c1 === 0x2a) return this.#blockComment(i);
        this.#pos = i + 1;
        return kArith;
      case 0x28:
        this.#pos = i + 1;
        return kOpen;
      case 0x29:
        this.#pos = i + 1;
        return kClose;
      case 0x2c:
        this.#pos = i + 1;
        return kComma;
      case 0x3b:
        this.#pos = i + 1;
        return kSemicolon;
      case 0x7c: // || or |
      case 0x26: // && or &
        if (c1 === c) {
          this.#pos = i + 2;
          return kLogic;
        }
        this.#pos = i + 1;
        return kArith;
      case 0x3d: // =, ==
        this.#pos = c1 === 0x3d ? i + 2 : i + 1;
        return kCompare;
      case 0x3c: // < <= <> <=> <<
      case 0x3e: {
        // > >= >>
        if (c1 === c) {
          this.#pos = i + 2;
          return kArith;
        }
        let j = i + 1;
        if (c1 === 0x3d || (c === 0x3c && c1 === 0x3e)) j++;
        if (c === 0x3c && c1 === 0x3d && text.charCodeAt(j) === 0x3e) j++;
        this.#pos = j;
        return kCompare;
      }
      case 0x21: // != or !
        if (c1 === 0x3d) {
          this.#pos = i + 2;
          return kCompare;
        }
        this.#pos = i + 1;
        return kNot;
      case 0x3a: // := assignment, else punctuation
        this.#pos = c1 === 0x3d ? i + 2 : i + 1;
        return c1 === 0x3d ? kCompare : kOther;
      case 0x2b: // +
      case 0x2a: // *
      case 0x25: // %
      case 0x5e: // ^
      case 0x7e: // ~
        this.#pos = i + 1;
        return kArith;
      default:
        this.#pos = i + 1;
        return kOther;
    }
  }

  /** `/* ... *\/` is skipped; MySQL's `/*! ... *\/` runs its content, so only its markers are; unclosed, it comments out the rest. */
  #blockComment(i: number): number {
    const text = this.#text;
    if (text.charCodeAt(i + 2) === 0x21) {
      let j = i + 3;
      while (j < text.length && classOf(text.charCodeAt(j)) & cDigit) j++;
      this.#pos = j;
      return kSkip;
    }
    const end = text.indexOf('*/', i + 2);
    if (end < 0) {
      this.#pos = text.length;
      return kComment;
    }
    this.#pos = end + 2;
    return kSkip;
  }

  /** Where a string opened before `from` with `quote` ends (after its closing quote); `''` and `\'` escape. */
  #stringEnd(from: number, quote: number): number {
    const text = this.#text;
    let i = from;
    for (;;) {
      const at = text.indexOf(quote === 0x27 ? "'" : quote === 0x22 ? '"' : '`', i);
      if (at < 0) return text.length;
      let backslashes = 0;
      for (let j = at - 1; j >= from && text.charCodeAt(j) === 0x5c; j--) backslashes++;
      if (backslashes % 2 === 1) {
        i = at + 1;
        continue;
      }
      if (text.charCodeAt(at + 1) === quote) {
        i = at + 2;
        continue;
      }
      return at + 1;
    }
  }

  /** 12, 1.5, .5, 1e-3, 0x1f, 0b101; a letter right after ends it (`20.to_i` is 20. then to_i). */
  #numberEnd(i: number): number {
    const text = this.#text;
    const base = text.charCodeAt(i + 1) | 0x20;
    if (text.charCodeAt(i) === 0x30 && (base === 0x78 || base === 0x62)) {
      let j = i + 2;
      while (j < text.length && isHex(text.charCodeAt(j))) j++;
      if (j > i + 2) return j;
    }
    let j = i;
    while (j < text.length && classOf(text.charCodeAt(j)) & cDigit) j++;
    if (text.charCodeAt(j) === 0x2e) {
      j++;
      while (j < text.length && classOf(text.charCodeAt(j)) & cDigit) j++;
    }
    if ((text.charCodeAt(j) | 0x20) === 0x65) {
      let k = j + 1;
      if (text.charCodeAt(k) === 0x2b || text.charCodeAt(k) === 0x2d) k++;
      if (classOf(text.charCodeAt(k)) & cDigit) {
        while (k < text.length && classOf(text.charCodeAt(k)) & cDigit) k++;
        j = k;
      }
    }
    return j;
  }

  /** A word (dots join qualified names: `dbms_lock.sleep`), its kind from the table, phrases folded. */
  #word(i: number): number {
    const text = this.#text;
    let j = i;
    while (j < text.length) {
      const c = text.charCodeAt(j);
      if (classOf(c) & cWord || (c === 0x2e && j + 1 < text.length && classOf(text.charCodeAt(j + 1)) & cWord)) j++;
      else break;
    }
    this.#pos = j;
    const entry = lookUp(text, i, j);
    if (entry === undefined) return kWord;
    if (entry.call !== undefined && this.#opensCall(j, entry.spaced === true)) return entry.call;
    if (entry.next !== undefined) {
      const k = this.#skipBlank(j);
      let e = k;
      while (e < text.length && classOf(text.charCodeAt(e)) & cWord) e++;
      if (e > k && e - k <= maxWordLength && entry.next.has(text.slice(k, e).toLowerCase())) {
        this.#pos = e;
        return entry.phraseKind ?? entry.kind;
      }
    }
    return entry.kind;
  }

  /** Whether `(` follows at `j`, after inline comments (and whitespace when `spaced`). */
  #opensCall(j: number, spaced: boolean): boolean {
    const text = this.#text;
    for (;;) {
      if (spaced) while (j < text.length && classOf(text.charCodeAt(j)) === cSpace) j++;
      if (text.startsWith('/*', j)) {
        const end = text.indexOf('*/', j + 2);
        if (end < 0) return false;
        j = end + 2;
        continue;
      }
      return text.charCodeAt(j) === 0x28;
    }
  }

  /** After whitespace and inline comments from `j`. */
  #skipBlank(j: number): number {
    const text = this.#text;
    for (;;) {
      while (j < text.length && classOf(text.charCodeAt(j)) === cSpace) j++;
      if (!text.startsWith('/*', j)) return j;
      const end = text.indexOf('*/', j + 2);
      if (end < 0) return j;
      j = end + 2;
    }
  }
}

const isHex = (c: number): boolean => (c >= 0x30 && c <= 0x39) || ((c | 0x20) >= 0x61 && (c | 0x20) <= 0x66);

/** FNV-1a over text[i, j) with ASCII letters in lower case, folded to a slot of the table. */
function hashLower(text: string, i: number, j: number): number {
  let h = 0x811c9dc5;
  for (let k = i; k < j; k++) {
    const c = text.charCodeAt(k);
    h = Math.imul(h ^ (c >= 0x41 && c <= 0x5a ? c | 0x20 : c), 0x01000193);
  }
  return (h ^ (h >>> slotBits) ^ (h >>> (2 * slotBits))) & ((1 << slotBits) - 1);
}

function find(text: string, i: number, j: number): WordKind | undefined {
  for (let slot = hashLower(text, i, j); ; slot = (slot + 1) & (slots.length - 1)) {
    const index = (slots[slot] ?? 0) - 1;
    if (index < 0) return undefined;
    const name = names[index] ?? '';
    if (sameLower(text, i, j, name)) return entries[index];
  }
}

/** Whether text[i, j) is `name` (lower case) in any case. */
function sameLower(text: string, i: number, j: number, name: string): boolean {
  if (name.length !== j - i) return false;
  for (let k = 0; k < name.length; k++) {
    const c = text.charCodeAt(i + k);
    if ((c >= 0x41 && c <= 0x5a ? c | 0x20 : c) !== name.charCodeAt(k)) return false;
  }
  return true;
}

/**
 * The table's entry for text[i, j) in any case; a qualified name (`master..xp_cmdshell`,
 * `dbms_lock.sleep`) by its last part or its package too — only for the names no prose or code
 * shares (`x.sleep(` is a method in many languages).
 */
function lookUp(text: string, i: number, j: number): WordKind | undefined {
  if (j - i > maxWordLength || j - i < 2) return undefined;
  const entry = find(text, i, j);
  if (entry !== undefined) return entry;
  const dot = text.lastIndexOf('.', j - 1);
  if (dot < i) return undefined;
  const last = find(text, dot + 1, j);
  if (last?.spaced === true) return last;
  const first = find(text, i, text.indexOf('.', i));
  return first?.spaced === true ? first : undefined;
}
