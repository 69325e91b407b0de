// What every action (a feature's `*.actions.ts`: one use case, its transaction and its audit entry) is given by
// whoever calls it, a route or a CLI command: the database, the clock, the clinic's zone, and who acts.
import type { Db } from '../../db/database.js';
import type { Clock } from '../../shared/clock.js';
import { todayIn } from '../../shared/dates.js';

export interface Actor {
  readonly id: number;
  readonly username: string;
}

export interface ActionContext {
  readonly db: Db;
  readonly clock: Clock;
  readonly timeZone: string;
  /** The user acting, or null (a CLI command, an anonymous login attempt). */
  readonly actor: Actor | null;
  /** The HTTP request's id, written with the audit entry; absent for a CLI command. */
  readonly requestId?: string;
}

/** Today's date (YYYY-MM-DD) in the clinic's zone, as the action sees it. */
export const todayOf = (ctx: ActionContext): string => todayIn(ctx.timeZone, ctx.clock.now());
