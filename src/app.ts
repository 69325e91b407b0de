import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import rateLimit from '@fastify/rate-limit';
import fastifyStatic from '@fastify/static';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { sql } from 'kysely';
import { agendaAdminRoutes } from './agenda/agenda.admin.routes.js';
import { agendaRoutes } from './agenda/agenda.routes.js';
import { registerTheAuditFields } from './app/audit-fields.js';
import { auditRoutes } from './audit/audit.routes.js';
import { dashboardRoutes } from './dashboard/dashboard.routes.js';
import { ripsRoutes } from './rips/rips.routes.js';
import { ripsSettingsRoutes } from './rips/rips.settings.routes.js';
import { examRoutes } from './exams/exam.routes.js';
import { fhirRoutes } from './fhir/fhir.routes.js';
import { uploadScope } from './imports/upload-scope.js';
import { ingresoRoutes } from './ingresos/ingreso.routes.js';
import { divipolaCatalogueRoutes } from './patients/divipola.catalogue.js';
import { documentoCollisionsRoutes } from './patients/collisions.routes.js';
import { patientExportRoutes } from './patients/patient.export.routes.js';
import { patientRoutes } from './patients/patient.routes.js';
import { ENTIDADES_SALUD, PROGRAMAS } from './patients/patient.rules.js';
import { userAdminRoutes } from './users/admin.routes.js';
import { authRoutes } from './users/auth.routes.js';
import { usersExportRoutes } from './users/users.export.routes.js';
import type { AppDeps } from './web/deps.js';
import { createViewAuditQueue, startViewWriter } from './audit/audit.queue.js';
import { SERVER_WAL_AUTOCHECKPOINT } from './db/sqlite-pragmas.js';
import { writeTurnOf } from './platform/writes/write-turn.js';
import { registerErrorHandling } from './web/errors.js';
import { parseFormBody } from './web/form.js';
import { PageCache } from './platform/pages/page-cache.js';
import { KeptMemory } from './platform/memory.js';
import { registerCsrf } from './web/csrf.js';
import { guardPlugin } from './web/guard.js';
import { CompletedOnlyLogController, loggerOptions } from './web/logging.js';
import { serviceRoutes } from './web/service.routes.js';
import { messagesPlugin } from './web/messages.js';
import { securityPlugin } from './web/security.js';
import { sessionPlugin } from './users/session.plugin.js';

const publicDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'public');
export interface BuildAppOptions extends AppDeps {
  /** pino options, or false for silence (tests). */
  logger?: FastifyServerOptions['logger'];
  setupToken?: string | null;
  /**
   * Login attempts per minute from one address (default: config.loginAttemptsPerMinute): a flood guard only, set
   * high because a whole clinic may share one public address; guessing one account's password is stopped by the
   * per-user-name lock.
   */
  loginAttemptsPerMinute?: number;
  /** The login's password check (default: the real one); tests wrap it to count the checks or to pace them. */
  checkPassword?: (password: string, stored: string) => Promise<boolean>;
  /**
   * How long a view of a patient's record may wait to be written to the audit trail with others (decision
   * 0011); 0 writes each at once. Default: 50 ms, or 0 when APP_ENV=test.
   */
  auditViewFlushMs?: number;
  /** The SQLite file, when the database is one: views are then written by a worker thread of their own. */
  sqliteFile?: string | null;
  /** How long an import's confirm waits before answering that it goes on in the background (decision 0135). */
  importConfirmWaitMs?: number;
  /** false renders every kept page anew on each request (the differential tests compare both). Default: true. */
  keepPages?: boolean;
  /**
   * The rate limit's store (a class, as @fastify/rate-limit takes it): one counted by the cluster's primary when
   * several servers share the port (decision 0190). Default: the plugin's own, in this process.
   */
  rateLimitStore?: new (options: unknown) => unknown;
}

export async function buildApp(options: BuildAppOptions): Promise<FastifyInstance> {
  const { config, db, engine, clock } = options;
  const app = Fastify({
    logger: options.logger ?? loggerOptions(config.appEnv),
    genReqId: () => randomUUID(),
    requestIdHeader: false,
    // A hop count is valid at run time though the type omits it.
    trustProxy: config.trustProxy as boolean | string[],
    bodyLimit: 1024 * 1024,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
    logController: new CompletedOnlyLogController(config.logRequests),
  });
  app.decorate('deps', { config, db, engine, clock } satisfies AppDeps);
  const flushMs = options.auditViewFlushMs ?? (config.appEnv === 'test' ? 0 : 50);
  // SQLite: the groups are committed by a thread of their own, so their fsync never holds requests (decision 0017).
  const viewWriter = engine === 'sqlite' && options.sqliteFile && flushMs > 0 ? startViewWriter(options.sqliteFile, writeTurnOf(db)) : null;
  // …and so are the checkpoints: that thread commits every 50 ms while anyone reads a record, so it reaches the
  // 1,000 pages of WAL first; this thread checkpoints only past 10,000, when no view has been written for a long
  // while (decision 0052).
  if (viewWriter) await sql`pragma wal_autocheckpoint = ${sql.lit(SERVER_WAL_AUTOCHECKPOINT)}`.execute(db);
  const auditViews = createViewAuditQueue(db, {
    flushMs,
    writer: viewWriter,
    onError: (err) => app.log.error({ err }, 'audit views could not be written; retrying'),
  });
  app.decorate('auditViews', auditViews);
  // The trail reads the records' fields with the definitions their forms use (decision 0035).
  registerTheAuditFields();
  app.decorate('pages', new PageCache(db, options.keepPages ?? true));
  app.decorate('keptMemory', new KeptMemory());
  // app.close() (graceful shutdown) waits for the last views to be written before the database is closed.
  app.addHook('onClose', async () => auditViews.close());

  // Forms only: no JSON API is defined, so other body types are refused (415).
  app.removeAllContentTypeParsers();
  await app.register(formbody, { bodyLimit: 1024 * 1024, parser: parseFormBody });

  registerErrorHandling(app);
  await app.register(cookie, { secret: config.signingSecret, hook: 'onRequest' });
  await app.register(securityPlugin);
  await app.register(rateLimit, { global: false, ...(options.rateLimitStore ? { store: options.rateLimitStore as never } : {}) });
  await app.register(messagesPlugin);
  await app.register(sessionPlugin);
  await app.register(guardPlugin);
  const checkCsrf = await registerCsrf(app, config);

  await app.register(fastifyStatic, { root: publicDir, prefix: '/static/', index: false, maxAge: '1h' });
  await app.register(divipolaCatalogueRoutes);

  await app.register(serviceRoutes, { publicDir });

  await app.register(authRoutes, {
    prefix: '/users',
    setupToken: options.setupToken ?? null,
    loginAttemptsPerMinute: options.loginAttemptsPerMinute ?? config.loginAttemptsPerMinute,
    ...(options.checkPassword ? { checkPassword: options.checkPassword } : {}),
  });
  await app.register(userAdminRoutes, { prefix: '/users' });
  await app.register(documentoCollisionsRoutes);
  await app.register(auditRoutes, { prefix: '/users/audit' });
  await app.register(ripsSettingsRoutes, { prefix: '/users/rips' });
  await app.register(agendaAdminRoutes, { prefix: '/users/agenda' });
  await app.register(dashboardRoutes, { prefix: '/dashboard' });
  await app.register(ripsRoutes, { prefix: '/dashboard' });
  await app.register(patientRoutes, { prefix: '/patients' });
  await app.register(ingresoRoutes, { prefix: '/patients' });
  await app.register(fhirRoutes, { prefix: '/patients' });
  await app.register(agendaRoutes, { prefix: '/agenda', programas: PROGRAMAS, entidades: ENTIDADES_SALUD });
  await app.register(uploadScope, { checkCsrf, confirmWaitMs: options.importConfirmWaitMs });
  await app.register(patientExportRoutes);
  await app.register(usersExportRoutes);
  await app.register(examRoutes, { prefix: '/exams' });
  return app;
}
