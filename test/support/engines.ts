// Which store engines the suite runs on: SQLite always; PostgreSQL when EDGEPLANE_TEST_DATABASE_URL
// names a server where we may create databases (each service gets its own, dropped afterwards).
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export type Engine = 'sqlite' | 'postgres';

const adminUrl = process.env['EDGEPLANE_TEST_DATABASE_URL'];
let warned = false;

export function engines(): Engine[] {
  if (adminUrl === undefined || adminUrl === '') {
    if (!warned) {
      warned = true;
      process.stderr.write(
        '\n*** EDGEPLANE_TEST_DATABASE_URL is not set: PostgreSQL tests are SKIPPED; only SQLite runs. ***\n\n',
      );
    }
    return ['sqlite'];
  }
  return ['sqlite', 'postgres'];
}

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

/** A fresh database on the server `serverUrl` names (by default EDGEPLANE_TEST_DATABASE_URL's); `drop` removes it. */
export async function createPostgresDatabase(serverUrl = adminUrl): Promise<TestDatabase> {
  if (serverUrl === undefined) throw new Error('EDGEPLANE_TEST_DATABASE_URL is not set');
  const name = `edgeplane_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: serverUrl });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}
