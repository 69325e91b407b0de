import type { Generated, Insertable, Selectable } from 'kysely';
import type { TableEntries } from '../platform/tables.js';

export interface UsersTable {
  id: Generated<number>;
  username: string;
  username_key: string;
  password_hash: string;
  is_admin: number;
  is_active: number;
  created_at: string;
  last_login_at: string | null;
}

export interface SessionsTable {
  id_hash: string;
  user_id: number;
  created_at: string;
  last_seen_at: string;
  ip: string | null;
  user_agent: string | null;
}

export interface LoginFailuresTable {
  id: Generated<number>;
  username_key: string;
  at: string;
}

export interface UserTables {
  users: UsersTable;
  sessions: SessionsTable;
  login_failures: LoginFailuresTable;
}

/** The registry's lines of these tables (src/platform/tables.ts). */
export const USER_TABLE_ENTRIES = {
  // The follow page and the clinical view show users' names.
  users: { versioned: true },
  sessions: {},
  login_failures: {},
} as const satisfies TableEntries<keyof UserTables>;

export type UserRow = Selectable<UsersTable>;
export type NewUserRow = Insertable<UsersTable>;
