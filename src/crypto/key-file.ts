// Keys the service makes for itself: taken from configuration when set, otherwise created once in
// the data dir (mode 0600) and read from there on every later start, by every process using it.
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';

export function loadOrCreateKey(dataDir: string, file: string, configured: string | undefined): Uint8Array {
  if (configured !== undefined) return new TextEncoder().encode(configured);
  const keyPath = path.join(dataDir, file);
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  try {
    // 'wx' fails if another process created the key first; then we read theirs.
    fs.writeFileSync(keyPath, randomBytes(32).toString('base64'), { flag: 'wx', mode: 0o600 });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
  return Buffer.from(fs.readFileSync(keyPath, 'utf8').trim(), 'base64');
}
