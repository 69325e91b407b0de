import { createHash, randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import cookie from '@fastify/cookie';
import csrf from '@fastify/csrf-protection';
import formbody from '@fastify/formbody';
import multipart, { type MultipartFile } from '@fastify/multipart';
import rateLimit from '@fastify/rate-limit';
import fastifyStatic from '@fastify/static';
import Fastify, { LogController, type FastifyInstance, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify';
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
import { importRoutes, type UploadedFile } from './imports/import.routes.js';
import { MAX_IMPORT_BYTES } from './imports/import.rules.js';
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
import { registerErrorHandling, sendErrorPage } from './web/errors.js';
import { parseFormBody } from './web/form.js';
import { PageCache } from './platform/pages/page-cache.js';
import { KeptMemory } from './platform/memory.js';
import { mappedStack } from './platform/launch/mapped-stack.js';
import { guardPlugin, requireAdmin } from './web/guard.js';
import { messagesPlugin } from './web/messages.js';
import { securityPlugin } from './web/security.js';
import { sessionPlugin } from './users/session.plugin.js';

const publicDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'public');
const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const CSRF_COOKIE = 'csrftoken';
/** Secrets whose page token is kept (one per browser; emptied when full). */
const PAGE_TOKENS_MAX = 10_000;

/** The token from the form field `csrfmiddlewaretoken` or the header `X-CSRFToken`. */
function csrfTokenOf(request: FastifyRequest): string | undefined {
  const field = (request.body as Record<string, unknown> | undefined)?.csrfmiddlewaretoken;
  const header = request.headers['x-csrftoken'];
  return typeof field === 'string' ? field : typeof header === 'string' ? header : undefined;
}

/** What a CSRF token is bound to: the session's id hash (or the one just ended), or 'anonymous' before login (the plugin refuses ''). */
function csrfUserInfo(request: FastifyRequest): string {
  // A form posted just after its session ended carries a token of that session: it is checked against it before
  // the form is kept for its user (decision 0110).
  // Only for such a form: a page rendered for a request whose session just ended is bound to no session.
  const expired = request.expiredSession;
  return request.sessionIdHash ?? (expired?.keepsForm ? expired.idHash : 'anonymous');
}

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

/**
 * At most one log line a request, written when it is answered (method, path, status, time): every failed one, and
 * the others only with LOG_REQUESTS=true (decision 0016).
 */
class CompletedOnlyLogController extends LogController {
  constructor(private readonly logRequests: boolean) {
    super();
  }
  override incomingRequest(): void {}
  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (error) reply.log.error({ req: request, res: reply, err: error, responseTime: reply.elapsedTime }, 'request errored');
    else if (this.logRequests) reply.log.info({ req: request, res: reply, responseTime: reply.elapsedTime }, 'request completed');
  }
}

/** Only the path, never the query string: searches carry patients' names and documents. */
const requestSerializer = (req: { method: string; url: string; id: string }) => ({
  id: req.id,
  method: req.method,
  path: req.url.split('?')[0],
});

/** An error as logged: its stack in the TypeScript sources, mapped only now (decision 0250). */
export const errorSerializer = (err: Error & { code?: unknown }) => ({
  type: err.constructor?.name ?? 'Error',
  message: err.message,
  stack: mappedStack(err.stack ?? ''),
  ...(err.code === undefined ? {} : { code: err.code }),
});

export function loggerOptions(appEnv: string): FastifyServerOptions['logger'] {
  return {
    level: appEnv === 'test' ? 'warn' : 'info',
    redact: ['req.headers.cookie', 'req.headers.authorization', 'req.headers["x-csrftoken"]', 'res.headers["set-cookie"]'],
    serializers: { req: requestSerializer, err: errorSerializer },
  };
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
  await app.register(csrf, {
    sessionPlugin: '@fastify/cookie',
    cookieKey: CSRF_COOKIE,
    cookieOpts: { path: '/', httpOnly: true, sameSite: 'lax', secure: config.isProduction, signed: true },
    getToken: csrfTokenOf,
    // Tokens are bound to the session they were made for (decision 0032): one made before login, or in another
    // session, fails in this one even with its own secret cookie.
    getUserInfo: csrfUserInfo,
    csrfOpts: { hmacKey: createHash('sha256').update(`csrf-session-binding:${config.signingSecret}`).digest() },
  });
  // The token a page's forms carry. The token of a secret stays valid as long as the secret (and the session), so
  // one token per (secret cookie, session) is made and reused: making it (and checking the cookie's signature) was
  // 6 % of a page's time. Pages are never compressed, so a constant token gives a BREACH-style attack nothing.
  const pageTokens = new Map<string, string>();
  app.decorateReply('pageCsrfToken', function (this: FastifyReply) {
    const cookie = this.request.cookies[CSRF_COOKIE];
    const key = cookie === undefined ? undefined : `${cookie}|${csrfUserInfo(this.request)}`;
    const known = key === undefined ? undefined : pageTokens.get(key);
    if (known !== undefined) return known;
    const token = this.generateCsrf({ userInfo: csrfUserInfo(this.request) });
    // Only a cookie this server signed names a secret; a missing or forged one was just replaced by a new secret.
    if (key !== undefined && cookie !== undefined && this.unsignCookie(cookie).valid) {
      if (pageTokens.size >= PAGE_TOKENS_MAX) pageTokens.clear();
      pageTokens.set(key, token);
    }
    return token;
  });
  // A new secret (login, logout): the request's secret cookie is forgotten, so the plugin makes and sets a new one.
  app.decorateReply('renewCsrfSecret', function (this: FastifyReply) {
    delete this.request.cookies[CSRF_COOKIE];
    this.generateCsrf({ userInfo: csrfUserInfo(this.request) });
  });
  // After the body is parsed, so the form field can be read (a check in onRequest would refuse every form). The
  // upload scope's routes are checked by that scope, after their multipart body is parsed (below).
  const checkCsrf = (request: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void) => {
    if (!UNSAFE.has(request.method)) return done();
    return app.csrfProtection(request, reply, done);
  };
  app.addHook('preValidation', (request, reply, done) => {
    if (request.routeOptions.config.uploadScope === true) return done();
    return checkCsrf(request, reply, done);
  });

  await app.register(fastifyStatic, { root: publicDir, prefix: '/static/', index: false, maxAge: '1h' });
  await app.register(divipolaCatalogueRoutes);

  // Browsers ask for /favicon.ico on their own: answered from the bundle's public files (no 404 in their console).
  const favicon = await readFile(path.join(publicDir, 'favicon.ico'));
  app.get('/favicon.ico', async (_request, reply) => reply.header('cache-control', 'public, max-age=604800').type('image/x-icon').send(favicon));
  app.get('/', async (request, reply) => reply.redirect(request.user ? '/dashboard/' : '/users/login/', 302));
  app.get('/healthz', async (_request, reply) => {
    try {
      await sql`select 1`.execute(db);
      return reply.type('text/plain; charset=utf-8').send('ok');
    } catch {
      return reply.code(503).type('text/plain; charset=utf-8').send('unavailable');
    }
  });

  // The kept pages' hits and renders so far (administrators; the benchmark prints the hit rate of each scenario).
  app.get('/healthz/cache', { preHandler: requireAdmin }, async (_request, reply) => reply.header('cache-control', 'no-store').send(app.pages.counts()));

  // Where the memory is (administrators; the benchmark prints it after each scenario, decision 0250).
  app.get('/healthz/memory', { preHandler: requireAdmin }, async (_request, reply) =>
    reply.header('cache-control', 'no-store').send(app.keptMemory.report(app.pages.keptBytes())),
  );

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
  // Multipart bodies (the spreadsheet upload, decision 0042) are parsed only in a scope of their own: its parser and
  // the multipart plugin's three hooks run for no other request (decision 0055), and any other route has no parser
  // for them (415). The plugin parses the body in a preValidation hook, which runs after the application's own: the
  // CSRF token, a field of that body, is checked by this scope after it, and the application's check leaves the
  // scope's routes (marked by the scope itself) to it.
  await app.register(async (uploads) => {
    uploads.addHook('onRoute', (route) => {
      route.config = { ...route.config, uploadScope: true };
    });
    // Within the scope, only the routes that ask for multipart (`config: { multipart: true }`) take it.
    uploads.addHook('onRequest', async (request, reply) => {
      if (/^multipart\//i.test(request.headers['content-type'] ?? '') && !request.routeOptions.config.multipart) {
        return sendErrorPage(request, reply, 415);
      }
    });
    await uploads.register(multipart, {
      attachFieldsToBody: 'keyValues',
      throwFileSizeLimit: false,
      limits: { fileSize: MAX_IMPORT_BYTES, files: 1, fields: 5, fieldSize: 1000, parts: 6, headerPairs: 100 },
      onFile: async (part: MultipartFile) => {
        const data = await part.toBuffer();
        (part as MultipartFile & { value: UploadedFile }).value = { filename: part.filename, data, truncated: part.file.truncated };
      },
    });
    uploads.addHook('preValidation', checkCsrf);
    await uploads.register(importRoutes, { prefix: '/patients/import', confirmWaitMs: options.importConfirmWaitMs });
  });
  await app.register(patientExportRoutes);
  await app.register(usersExportRoutes);
  await app.register(examRoutes, { prefix: '/exams' });
  return app;
}
