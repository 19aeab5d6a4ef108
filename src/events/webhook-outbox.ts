// Webhook outbox repository. The API enqueues in the transaction of the zone change, so a committed
// change always has its webhook and a rolled-back one never does; the delivery worker drains it.
import type { Selectable } from 'kysely';
import type { Db } from '../store/database.ts';
import type { WebhookOutboxTable } from '../store/schema.ts';

export type WebhookRow = Selectable<WebhookOutboxTable>;

/** Last errors are receivers' words; keep the row small whatever they send. */
const maxErrorLength = 500;

export async function enqueueWebhook(
  db: Db,
  hook: { zoneId: number; url: string; method: string; payload: unknown },
): Promise<void> {
  const now = new Date().toISOString();
  await db
    .insertInto('webhook_outbox')
    .values({
      zone_id: hook.zoneId,
      url: hook.url,
      method: hook.method,
      payload: JSON.stringify(hook.payload),
      next_attempt_at: now,
      created_at: now,
    })
    .execute();
}

/**
 * Claims up to `limit` due rows for one attempt each: their next_attempt_at moves to `leaseUntil`
 * (which then identifies this claim) and attempts goes up by one. Being a single UPDATE, a row is
 * claimed by one worker only, on SQLite (one writer) as on PostgreSQL (a concurrent claimer
 * re-checks the row after the first commits, finds it no longer due and skips it). A worker
 * that dies mid-attempt leaves a lease that expires, and the row is tried again.
 *
 * Only the oldest pending row of a zone is ever due, so a zone's webhooks arrive in order.
 * Rows whose zone was deleted have lost their zone_id and are never due: a deleted zone's changes
 * are not announced any more (deleteZone also marks them failed; this covers any it raced with).
 */
export function claimDueWebhooks(
  db: Db,
  claim: { now: string; leaseUntil: string; limit: number },
): Promise<WebhookRow[]> {
  return db
    .updateTable('webhook_outbox')
    .set((eb) => ({ next_attempt_at: claim.leaseUntil, attempts: eb('attempts', '+', 1) }))
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('webhook_outbox as due')
        .select('due.id')
        .where('due.delivered_at', 'is', null)
        .where('due.failed_at', 'is', null)
        .where('due.next_attempt_at', '<=', claim.now)
        .where('due.zone_id', 'is not', null)
        .where((eb) =>
          eb.not(
            eb.exists(
              eb
                .selectFrom('webhook_outbox as earlier')
                .select('earlier.id')
                .whereRef('earlier.id', '<', 'due.id')
                .where('earlier.delivered_at', 'is', null)
                .where('earlier.failed_at', 'is', null)
                .whereRef('earlier.zone_id', '=', 'due.zone_id'),
            ),
          ),
        )
        .orderBy('due.id')
        .limit(claim.limit),
    )
    // Repeated on the updated row itself: this is what PostgreSQL re-checks under concurrency.
    .where('delivered_at', 'is', null)
    .where('failed_at', 'is', null)
    .where('next_attempt_at', '<=', claim.now)
    .returningAll()
    .execute();
}

/** A deleted zone's pending webhooks stop: called in the transaction that deletes it. */
export async function abandonZoneWebhooks(db: Db, zoneId: number, at: string): Promise<void> {
  await db
    .updateTable('webhook_outbox')
    .set({ failed_at: at, last_error: 'the zone was deleted' })
    .where('zone_id', '=', zoneId)
    .where('delivered_at', 'is', null)
    .where('failed_at', 'is', null)
    .execute();
}

export async function markWebhookDelivered(db: Db, id: number, at: string): Promise<void> {
  // Whatever another claimer concluded meanwhile, the receiver has it now.
  await db
    .updateTable('webhook_outbox')
    .set({ delivered_at: at, failed_at: null })
    .where('id', '=', id)
    .where('delivered_at', 'is', null)
    .execute();
}

/**
 * Records a failed attempt of the claim `lease`: the row is tried again at `retryAt`, or given up
 * for good when `retryAt` is undefined. A claim that has since lost its lease changes nothing.
 */
export async function recordWebhookFailure(
  db: Db,
  failure: { id: number; lease: string; error: string; at: string; retryAt: string | undefined },
): Promise<void> {
  const error = failure.error.slice(0, maxErrorLength);
  await db
    .updateTable('webhook_outbox')
    .set(
      failure.retryAt === undefined
        ? { last_error: error, failed_at: failure.at }
        : { last_error: error, next_attempt_at: failure.retryAt },
    )
    .where('id', '=', failure.id)
    .where('next_attempt_at', '=', failure.lease)
    .where('delivered_at', 'is', null)
    .where('failed_at', 'is', null)
    .execute();
}
