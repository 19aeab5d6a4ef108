// `zone export <zone>` (the BIND zone file on stdout) and `zone import <zone>` (a zone file from
// --file or stdin; the zone is created first when the account has none of that name), through the
// same use cases as GET /dns/v2/zones/{name}/export and POST /dns/v2/zones/{name}/import.
import fs from 'node:fs';
import type { Readable } from 'node:stream';
import { ConfigError } from '../config.ts';
import { exportZone, importZone } from '../dns/zone-file-io.ts';
import { createZone, readZone } from '../dns/zones.ts';
import { maxZoneFileBytes } from '../dns/zonefile/parse.ts';
import { ApiError } from '../errors.ts';
import { oneArgument, writeJson, type OperatorCommand } from './command.ts';

/** Reads a stream whole, refusing more than the API takes in one import. */
async function readBounded(input: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of input) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    size += buffer.length;
    if (size > maxZoneFileBytes) throw new ConfigError(`the zone file is larger than ${String(maxZoneFileBytes)} bytes`);
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function readFileBounded(file: string): string {
  const size = fs.statSync(file).size;
  if (size > maxZoneFileBytes) throw new ConfigError(`${file} is larger than ${String(maxZoneFileBytes)} bytes`);
  return fs.readFileSync(file, 'utf8');
}

export const zoneExport: OperatorCommand = {
  usage: 'zone export ZONE',
  writes: false,
  async run(op, caller, args, _flags, io) {
    const { raw_zone } = await exportZone(op.dns, caller, oneArgument(args, 'zone name'));
    io.stdout.write(raw_zone);
  },
};

export const zoneImport: OperatorCommand = {
  usage: 'zone import ZONE [--file F]     (else the zone file is read from stdin)',
  writes: true,
  async run(op, caller, args, flags, io) {
    const zone = oneArgument(args, 'zone name');
    const text = flags.file === undefined ? await readBounded(io.stdin) : readFileBounded(flags.file);
    let created = false;
    try {
      await readZone(op.dns, caller, zone);
    } catch (e) {
      if (!(e instanceof ApiError) || e.status !== 404) throw e;
      await createZone(op.dns, caller, { name: zone });
      created = true;
    }
    const { created: rrsets, skipped } = await importZone(op.dns, caller, zone, text);
    writeJson(io, { zone, zone_created: created, created: rrsets, skipped });
  },
};
