// A name a caller asks the resolver about: a valid absolute name (names.ts), and not a special-use
// name (.internal, .local, home.arpa, private reverse zones...), which only a resolver inside the
// operator's network could answer: those answers are the operator's, not the caller's, to read.
import { invalid } from '../../errors.ts';
import { canonicalName, NameError, trimName } from '../names.ts';
import { specialUseName } from '../reserved-names.ts';

export function queryName(input: string, field: string): string {
  let name: string;
  try {
    name = canonicalName(trimName(input));
  } catch (e) {
    if (e instanceof NameError) throw invalid(`${field}: ${e.message}`, { [field]: e.message });
    throw e;
  }
  const special = specialUseName(name);
  if (special !== undefined) {
    const message = `${name} is below the special-use name ${special}, which is not looked up for callers`;
    throw invalid(`${field}: ${message}`, { [field]: message });
  }
  return name;
}
