import type { Generated, Insertable, Selectable } from 'kysely';

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

export type UserRow = Selectable<UsersTable>;
export type NewUserRow = Insertable<UsersTable>;
