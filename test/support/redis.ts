// The Redis the tests that share rate counters use: EDGEPLANE_TEST_REDIS_URL (.ci/run sets it and
// starts the machine's Redis when it does not answer). Without it those tests are skipped, loudly.
const url = process.env['EDGEPLANE_TEST_REDIS_URL'];

export const testRedisUrl: string | undefined = url === undefined || url === '' ? undefined : url;

/** `{ skip: reason }` for node:test when no Redis is configured; `{}` otherwise. */
export function needsRedis(): { skip?: string } {
  if (testRedisUrl !== undefined) return {};
  process.stderr.write('\n*** EDGEPLANE_TEST_REDIS_URL is not set: tests of rate counters shared through Redis are SKIPPED. ***\n\n');
  return { skip: 'EDGEPLANE_TEST_REDIS_URL is not set' };
}
