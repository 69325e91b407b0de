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
  /** Bumped by every password change, reset and deactivation: the sessions of older generations end (migration 0150). */
  password_generation: Generated<number>;
  /** The user's own document, as the attending professional of a RIPS service ('' until given; migration 0200). */
  tipo_documento: Generated<string>;
  documento: Generated<string>;
}

export interface SessionsTable {
  id_hash: string;
  user_id: number;
  created_at: string;
  last_seen_at: string;
  ip: string | null;
  user_agent: string | null;
  /** The user's password generation when the session was opened; honoured only while it is still the user's. */
  password_generation: number;
}

export interface LoginFailuresTable {
  id: Generated<number>;
  username_key: string;
  at: string;
}

/** One row per user name tried at the login: the turn its attempts take (migration 0151, decision 0060). */
export interface LoginThrottleTable {
  username_key: string;
  attempts: number;
  last_attempt_at: string;
}

export interface UserTables {
  users: UsersTable;
  sessions: SessionsTable;
  login_failures: LoginFailuresTable;
  login_throttle: LoginThrottleTable;
}

/** The registry's lines of these tables (src/platform/tables.ts). */
export const USER_TABLE_ENTRIES = {
  // The follow page and the clinical view show users' names.
  users: { versioned: true },
  sessions: {},
  login_failures: {},
  login_throttle: {},
} as const satisfies TableEntries<keyof UserTables>;

export type UserRow = Selectable<UsersTable>;
export type NewUserRow = Insertable<UsersTable>;
