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

/**
 * A form posted after its session ended, kept for that user only until they log in again (or briefly: the cleanup
 * removes it), then shown filled on the page it came from and deleted (migration 20261127_0300, decision 0110).
 */
export interface PendingFormsTable {
  user_id: number;
  /** the page the form was on (path and query), where it comes back */
  page: string;
  /** the path it was posted to: the form on the page with this action is the one filled */
  action: string;
  /** JSON: the posted fields as [name, value] pairs, in order, without the CSRF token */
  fields: string;
  created_at: string;
}

export interface UserTables {
  users: UsersTable;
  sessions: SessionsTable;
  login_failures: LoginFailuresTable;
  login_throttle: LoginThrottleTable;
  pending_forms: PendingFormsTable;
}

/** The registry's lines of these tables (src/platform/tables.ts). */
export const USER_TABLE_ENTRIES = {
  // The follow page and the clinical view show users' names.
  users: { versioned: true },
  sessions: {},
  login_failures: {},
  login_throttle: {},
  pending_forms: {},
} as const satisfies TableEntries<keyof UserTables>;

export type UserRow = Selectable<UsersTable>;
export type NewUserRow = Insertable<UsersTable>;
