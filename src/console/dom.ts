// Elements built in code: h('button', { type: 'button', onclick: save }, 'Save'). Text children are
// text nodes, never HTML, so a zone or record content can hold '<' and stays text.
export type Child = Node | string | number | null | undefined | false | Child[];

type Handler = (event: Event) => void;
type Value = string | number | boolean | null | undefined | Handler;
export type Props = Record<string, Value>;

// Set as properties: the attribute of these only gives the initial state. `selected` stays an
// attribute, which is also an option's default: a form's reset returns to it.
const properties = new Set(['value', 'checked', 'indeterminate']);

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, props?: Props | null, ...children: Child[]): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [key, value] of Object.entries(props ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (typeof value === 'function') {
      element.addEventListener(key.replace(/^on/, ''), value);
    } else if (properties.has(key)) {
      (element as unknown as Record<string, unknown>)[key] = value;
    } else {
      element.setAttribute(key, value === true ? '' : String(value));
    }
  }
  append(element, children);
  return element;
}

export function append(parent: Node, children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(parent, child);
    else parent.appendChild(typeof child === 'string' || typeof child === 'number' ? document.createTextNode(String(child)) : child);
  }
}

/** Replaces what an element holds. */
export function replace(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, children);
}

let counter = 0;
/** An id unique in the page, to tie labels and error messages to their controls. */
export function uniqueId(prefix: string): string {
  counter += 1;
  return `${prefix}-${counter}`;
}
