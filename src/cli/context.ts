import type { Config } from '../config.js';
import type { Db } from '../db/database.js';
import type { ActionContext } from '../platform/writes/action-context.js';
import { systemClock } from '../shared/clock.js';

/** The context a command's actions run in: nobody acting (the trail says so), the machine's clock, no request. */
export const cliContext = (db: Db, config: Config): ActionContext => ({ db, clock: systemClock, timeZone: config.timeZone, actor: null });
