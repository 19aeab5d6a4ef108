// rrsets_amount of many zones at once, counted by the database (zone lists must not load records).
import { sql } from 'kysely';
import type { Db } from '../store/database.ts';

export interface RrsetsAmount {
  static: number;
  total: number;
  dynamic: { healthcheck: number; total: number };
}

export async function rrsetCounts(db: Db, zoneIds: number[]): Promise<Map<number, RrsetsAmount>> {
  if (zoneIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('rrsets')
    .select([
      'zone_id',
      (eb) => eb.fn.countAll<number>().as('total'),
      sql<string | number>`sum(case when pickers is null then 0 else 1 end)`.as('dynamic'),
      (eb) => eb.fn.sum<string | number>('healthcheck').as('healthcheck'),
    ])
    .where('zone_id', 'in', zoneIds)
    .groupBy('zone_id')
    .execute();
  return new Map(
    rows.map((r) => {
      const total = r.total;
      const dynamic = Number(r.dynamic);
      return [r.zone_id, { static: total - dynamic, total, dynamic: { healthcheck: Number(r.healthcheck), total: dynamic } }];
    }),
  );
}
