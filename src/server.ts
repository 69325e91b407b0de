import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { buildApp, loggerOptions } from './app.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import { openDatabase } from './db/connection.js';
import { migrateToLatest } from './db/migrate.js';
import { systemClock } from './shared/clock.js';
import { deleteExpiredSessions } from './users/session.repository.js';
import { deletePendingFormsBefore } from './users/pending-form.repository.js';
import { pendingFormNotBefore } from './users/pending-form.rules.js';
import { countUsers, deleteStaleLoginRecords } from './users/user.repository.js';
import { LOCK_WINDOW_MS } from './users/user.rules.js';
import { inTransaction } from './platform/writes/transaction.js';
import { logDocumentoCollisions } from './patients/identity.repository.js';

async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(2);
    }
    throw err;
  }
  const handle = openDatabase(config.databaseUrl);
  await migrateToLatest(handle.db);

  const setupToken = (await countUsers(handle.db)) === 0 ? randomBytes(24).toString('base64url') : null;
  // Log lines are written by a background write of whatever accumulated meanwhile: under load, one write for many
  // requests instead of one blocking write each (a quarter of a small request's time). Flushed on shutdown.
  const logDestination = pino.destination({ dest: 1, sync: false });
  const app = await buildApp({
    config,
    db: handle.db,
    engine: handle.engine,
    clock: systemClock,
    setupToken,
    sqliteFile: handle.sqliteFile,
    logger: { ...(loggerOptions(config.appEnv) as object), stream: logDestination },
  });

  await logDocumentoCollisions(handle.db, app.log);

  const cleanup = setInterval(() => {
    const now = systemClock.now().getTime();
    inTransaction(handle.db, async (trx) => {
      await deleteExpiredSessions(
        trx,
        new Date(now - config.sessionIdleMinutes * 60_000).toISOString(),
        new Date(now - config.sessionAbsoluteHours * 3_600_000).toISOString(),
      );
      // Failures older than twice the lock window no longer count (recentLoginFailures reads no further).
      await deleteStaleLoginRecords(trx, new Date(now - 2 * LOCK_WINDOW_MS).toISOString());
      // Forms kept after a session ended that nobody came back for (decision 0110).
      await deletePendingFormsBefore(trx, pendingFormNotBefore(new Date(now)).toISOString());
    }).catch((err: unknown) => app.log.warn({ err }, 'session cleanup failed'));
  }, 10 * 60_000);
  cleanup.unref();

  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down: finishing requests in flight');
    clearInterval(cleanup);
    // app.close() stops accepting connections and waits for requests in flight.
    app
      .close()
      .then(() => handle.close())
      .then(() => {
        logDestination.flushSync();
        process.exit(0);
      })
      .catch((err: unknown) => {
        app.log.error({ err }, 'shutdown failed');
        process.exit(1);
      });
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));

  await app.listen({ port: config.port, host: config.host });
  const base = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${config.port}`;
  console.log(`Somno escucha en ${base} (base de datos: ${handle.engine})`);
  if (setupToken) {
    console.log(
      `No hay usuarios todavía. Cree el primer administrador con este enlace de un solo uso:\n  ${base}/users/setup/?token=${setupToken}`,
    );
  }
}

main().catch((err: unknown) => {
  console.error('Somno no pudo arrancar:', err instanceof Error ? err.message : err);
  process.exit(1);
});
