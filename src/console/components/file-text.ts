// A file input whose chosen file is read into a text area rather than sent straight to the API:
// what will be imported stays visible and editable (zone files, network-mapping YAML).
import { describeError } from '../api.ts';
import { notify } from './notice.ts';

export function readFileInto(file: HTMLInputElement, content: HTMLTextAreaElement): void {
  file.addEventListener('change', () => {
    const chosen = file.files?.[0];
    if (chosen === undefined) return;
    chosen.text().then(
      (text) => {
        content.value = text;
      },
      (error: unknown) => notify(`Could not read ${chosen.name}: ${describeError(error)}`, 'error'),
    );
  });
}
