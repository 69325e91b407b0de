import type { KeptMemory } from '../platform/memory.js';
import type { Config } from '../config.js';
import type { PageCache } from '../platform/pages/page-cache.js';
import type { Db } from '../db/database.js';
import type { Engine } from '../db/connection.js';
import type { Clock } from '../shared/clock.js';
import { todayIn } from '../shared/dates.js';

/** Who is logged in, as every page sees it. */
export interface SessionUser {
  id: number;
  username: string;
  isAdmin: boolean;
}

/** What every route may use: handed to buildApp, so tests bring their own database and clock. */
export interface AppDeps {
  readonly config: Config;
  readonly db: Db;
  readonly engine: Engine;
  readonly clock: Clock;
}

/** A form posted after its session ended, brought back filled on its page once its user logged in again. */
export interface RestoredForm {
  /** the path it was posted to: the page's form with this action is filled */
  action: string;
  fields: [string, string][];
  /** messages to show beside fields of that form, by field name (a refused form sent back by a redirect) */
  errors?: Record<string, string>;
}

/** Whose session a request came with when that session had just ended (a form it posts is kept for them). */
export interface ExpiredSession {
  idHash: string;
  userId: number;
  /** a plain form posted to a known route: the guard lets it reach its body, which is kept (never handled) */
  keepsForm: boolean;
}

export type MessageLevel = 'success' | 'error' | 'info' | 'warning';
export interface Message {
  level: MessageLevel;
  text: string;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route accepts multipart/form-data bodies (file uploads); every other route answers them 415. */
    multipart?: boolean;
    /** Set by the upload scope (app.ts) on its own routes: that scope checks their CSRF token, after their body. */
    uploadScope?: boolean;
  }
  interface FastifyInstance {
    deps: AppDeps;
    /** The kept pages of this instance (src/platform/pages/page-cache.ts). */
    pages: PageCache;
    /** The caches that keep bytes beside the kept pages, for GET /healthz/memory (src/platform/memory.ts). */
    keptMemory: KeptMemory;
  }
  interface FastifyRequest {
    /** The logged-in user, or null. */
    user: SessionUser | null;
    sessionIdHash: string | null;
    /** Set when the request came with a session that had just ended (users/session.plugin.ts). */
    expiredSession: ExpiredSession | null;
    /** The form to fill on this page, kept when it was posted after its session ended (decision 0110). */
    restoredForm: RestoredForm | null;
  }
  interface FastifyReply {
    /** Queues a one-time message for the next page this session sees. */
    flash(level: MessageLevel, text: string): void;
    /**
     * Sends a refused form, its values and its errors, to the next page this browser sees (after a redirect that the
     * contract requires): the page's form posted to `action` is filled and its fields marked (web/messages.ts).
     */
    flashForm(form: RestoredForm): void;
    /** The form sent back by flashForm to this page, if any; consumes it. */
    takeFlashForm(): RestoredForm | null;
    /** Messages to show on the page being rendered now (queued ones included); consumes them. */
    takeMessages(): Message[];
    /** The CSRF token for the forms of the page being rendered (one per CSRF secret, reused). */
    pageCsrfToken(): string;
    /** Replaces the CSRF secret with a new one bound to the request's current session (login, logout). */
    renewCsrfSecret(): void;
  }
}

/** Today's date (YYYY-MM-DD) in the configured time zone. */
export const today = (deps: AppDeps): string => todayIn(deps.config.timeZone, deps.clock.now());
