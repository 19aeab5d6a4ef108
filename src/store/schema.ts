// Table shapes as Kysely sees them. Flags are 0/1 integers and times ISO 8601 strings on both
// engines, so repositories read the same values from SQLite and PostgreSQL.
import type { Generated } from 'kysely';

export interface AccountsTable {
  id: Generated<number>;
  name: string;
  email: string;
  /** 1 for the platform operators' account (the first one); its administrators create accounts. */
  operator: number;
  created_at: string;
}

export interface UsersTable {
  id: Generated<number>;
  account_id: number;
  email: string;
  name: string;
  password_hash: string;
  role: string;
  created_at: string;
}

export interface ApiTokensTable {
  id: Generated<number>;
  account_id: number;
  user_id: number;
  name: string;
  description: string;
  role: string;
  secret_hash: string;
  exp_date: string | null;
  created_at: string;
  last_used_at: string | null;
}

export interface RefreshTokensTable {
  id: Generated<number>;
  user_id: number;
  /** Every rotation of one login shares a family; reuse of a spent token voids the family. */
  family: string;
  token_hash: string;
  expires_at: string;
  used_at: string | null;
  created_at: string;
}

export interface Tables {
  accounts: AccountsTable;
  users: UsersTable;
  api_tokens: ApiTokensTable;
  refresh_tokens: RefreshTokensTable;
}
