// The permanent API token as clients hold it: `<id>_<secret>`, or the legacy `<id>$<secret>`.
import { maxId } from '../store/schema.ts';

export function formatApiToken(id: number, secret: string): string {
  return `${id}_${secret}`;
}

export function parseApiToken(value: string): { id: number; secret: string } | undefined {
  const match = /^(\d{1,10})[_$]([A-Za-z0-9_-]{16,128})$/.exec(value);
  if (!match) return undefined;
  const id = Number(match[1]);
  // An id no store can hold is simply no token (PostgreSQL would refuse it in the query).
  if (id > maxId) return undefined;
  return { id, secret: match[2] ?? '' };
}
