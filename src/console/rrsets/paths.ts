// The API names a value by its JSON path (`resource_records[2].meta.countries`). Controls carry
// those paths, so when a record or a picker moves in its list its controls are renumbered.

/** Rewrites the paths under `from` (`resource_records[3]`) to start with `to` inside `element`. */
export function renumber(element: Element, from: string, to: string): void {
  if (from === to) return;
  for (const node of element.querySelectorAll('[data-field], [data-error-for]')) {
    for (const attribute of ['data-field', 'data-error-for']) {
      const path = node.getAttribute(attribute);
      if (path !== null && (path === from || path.startsWith(`${from}.`) || path.startsWith(`${from}[`))) {
        node.setAttribute(attribute, to + path.slice(from.length));
      }
    }
  }
}
