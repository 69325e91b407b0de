import cluster from 'node:cluster';
import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { buildApp } from './app.js';
import { loggerOptions } from './web/logging.js';
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
import { listBlocksUpkeep } from './patients/list-blocks.repository.js';
import { SETUP_TOKEN_ENV, WORKER_COUNT_ENV, WORKER_INDEX_ENV } from './platform/launch/cluster.js';
import { SharedRateLimitStore } from './platform/launch/shared-rate-limit.js';

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
  // One of several servers sharing the port (WORKERS > 1, decision 0190): the cluster's primary started it, the
  // first alone; the others come once it listens, so only the first finds migrations to run.
  const worker = cluster.isWorker ? Number(process.env[WORKER_INDEX_ENV] ?? '1') : null;
  const handle = openDatabase(config.databaseUrl, { sharedWithProcesses: worker !== null });
  await migrateToLatest(handle.db);

  // Every server of a cluster accepts the one link the first prints.
  const shared = worker !== null ? process.env[SETUP_TOKEN_ENV] : undefined;
  const setupToken = (await countUsers(handle.db)) === 0 ? (shared ?? randomBytes(24).toString('base64url')) : null;
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
    ...(worker !== null ? { rateLimitStore: SharedRateLimitStore } : {}),
  });

  const first = worker === null || worker === 1;
  if (first) await logDocumentoCollisions(handle.db, app.log);
  // The list's blocks cut again once the clinic has outgrown them (decision 0172): here and with the cleanup.
  const listBlocks = listBlocksUpkeep(handle.db);
  const upkeepListBlocks = () => {
    const started = performance.now();
    return listBlocks()
      .then((recut) => recut && app.log.info({ ms: Math.round(performance.now() - started) }, 'patient list blocks cut again'))
      .catch((err: unknown) => app.log.warn({ err }, 'patient list blocks upkeep failed'));
  };
  if (first) await upkeepListBlocks();

  const cleanup = setInterval(() => {
    const now = systemClock.now().getTime();
    void inTransaction(handle.db, async (trx) => {
      await deleteExpiredSessions(
        trx,
        new Date(now - config.sessionIdleMinutes * 60_000).toISOString(),
        new Date(now - config.sessionAbsoluteHours * 3_600_000).toISOString(),
      );
      // Failures older than twice the lock window no longer count (recentLoginFailures reads no further).
      await deleteStaleLoginRecords(trx, new Date(now - 2 * LOCK_WINDOW_MS).toISOString());
      // Forms kept after a session ended that nobody came back for (decision 0110).
      await deletePendingFormsBefore(trx, pendingFormNotBefore(new Date(now)).toISOString());
    })
      .catch((err: unknown) => app.log.warn({ err }, 'session cleanup failed'))
      .then(upkeepListBlocks);
  }, 10 * 60_000);
  cleanup.unref();
  // One server of a cluster cleans up for all.
  if (!first) clearInterval(cleanup);

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
  if (!first) return;
  console.log(`Somno escucha en ${base} (base de datos: ${handle.engine}${worker !== null ? `, ${process.env[WORKER_COUNT_ENV]} procesos` : ''})`);
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
