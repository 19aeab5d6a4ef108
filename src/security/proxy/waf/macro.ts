// SecLang's macros (`%{tx.critical_anomaly_score}`, `/%{tx.0}/`, `%{matched_var}`) in rule text,
// parsed once per text: the engine expands them for every rule that runs and every setvar, and a
// regex replace per expansion was a tenth of the WAF's time on ordinary requests.

/** One `%{collection.key}`. */
export interface MacroRef {
  /** Upper case: TX, MATCHED_VAR, RULE, REQUEST_HEADERS, ... */
  collection: string;
  /** Lower case; undefined for `%{matched_var}`. */
  key: string | undefined;
}

/** A text as its literal parts with the references between them: parts[0] ref[0] parts[1] ... */
export interface Template {
  parts: string[];
  refs: MacroRef[];
}

/** Templates by text; only texts with a macro (rule text: bounded by the rule set). */
const templates = new Map<string, Template>();

/** The template of `text`, or undefined when it has no macro (it expands to itself). */
export function templateOf(text: string): Template | undefined {
  if (!text.includes('%{')) return undefined;
  let template = templates.get(text);
  if (template === undefined) {
    template = { parts: [], refs: [] };
    let at = 0;
    for (const m of text.matchAll(/%\{([^}]+)\}/g)) {
      template.parts.push(text.slice(at, m.index));
      const name = m[1] ?? '';
      const dot = name.indexOf('.');
      template.refs.push({ collection: (dot < 0 ? name : name.slice(0, dot)).toUpperCase(), key: dot < 0 ? undefined : name.slice(dot + 1).toLowerCase() });
      at = m.index + m[0].length;
    }
    template.parts.push(text.slice(at));
    templates.set(text, template);
  }
  return template;
}
