// What POST /dns/v2/zones/{name}/import answers. By default `{created, skipped}` (the console reads
// it); under EDGEPLANE_COMPAT=gcore also the provider's
// `{"imported": {qtype, resource_records, rrsets, skipped_resource_records}, "success", "warnings"}`,
// beside those two so that the console keeps working against a gcore-profile server.
import type { Compat } from '../config.ts';
import type { ImportResult, ImportSkip } from './zone-file-io.ts';

export interface ProviderImportAnswer {
  imported: {
    /** Record types among the RRsets created. */
    qtype: number;
    resource_records: number;
    rrsets: number;
    skipped_resource_records: number;
  };
  success: boolean;
  /** By owner name (`line <n>` for a line that has none), then by type (`line` when none): the reasons. */
  warnings: Record<string, Record<string, string>>;
}

function warningsOf(skipped: readonly ImportSkip[]): ProviderImportAnswer['warnings'] {
  const warnings: ProviderImportAnswer['warnings'] = {};
  for (const s of skipped) {
    const byType = (warnings[s.name ?? `line ${String(s.line)}`] ??= {});
    const key = s.type ?? 'line';
    const reason = `line ${String(s.line)}: ${s.reason}`;
    byType[key] = byType[key] === undefined ? reason : `${byType[key]}; ${reason}`;
  }
  return warnings;
}

export function importAnswer(result: ImportResult, compat: Compat): Pick<ImportResult, 'created' | 'skipped'> | (Pick<ImportResult, 'created' | 'skipped'> & ProviderImportAnswer) {
  const { created, skipped } = result;
  if (compat !== 'gcore') return { created, skipped };
  return {
    imported: {
      qtype: new Set(created.map((c) => c.type)).size,
      resource_records: created.reduce((sum, c) => sum + c.records, 0),
      rrsets: created.length,
      skipped_resource_records: result.skippedRecords,
    },
    success: true,
    warnings: warningsOf(skipped),
    created,
    skipped,
  };
}
