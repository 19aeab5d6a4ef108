// The permanent API token as clients hold it: `<id>_<secret>`, or the legacy `<id>$<secret>`.

export function formatApiToken(id: number, secret: string): string {
  return `${id}_${secret}`;
}

export function parseApiToken(value: string): { id: number; secret: string } | undefined {
  const match = /^(\d{1,15})[_$]([A-Za-z0-9_-]{16,128})$/.exec(value);
  if (!match) return undefined;
  return { id: Number(match[1]), secret: match[2] ?? '' };
}
