import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { recordAudit } from '../audit/audit.repository.js';
import { conflict, isDomainError } from '../shared/domain-error.js';
import type { FieldErrors } from '../web/fields.js';
import { hasErrors, parseForm, queryValue } from '../web/form.js';
import { pageContext, redirectWith, sendPage } from '../web/render.js';
import { endSession, giveSessionCookie, openSession } from './session.plugin.js';
import { dummyHash, hashPassword, verifyPassword } from './password.js';
import { deleteSessionsOfUser, listSessionsOfUser } from './session.repository.js';
import {
  claimLogin,
  countUsers,
  findUserById,
  findUserByUsername,
  insertUser,
  releaseLoginFailures,
  replacePassword,
  reserveLoginAttempt,
  USERNAME_TAKEN,
} from './user.repository.js';
import { safeNext, USERNAME_MAX } from './user.rules.js';
import { BAD_CREDENTIALS, changePasswordSchema, loginSchema, setupSchema } from './user.schema.js';
import { LoginPage, LogoutPage, SetupPage } from './views/login.page.js';
import { PasswordPage } from './views/password.page.js';
import { inTransaction } from '../platform/writes/transaction.js';

const LOCKED =
  'Demasiados intentos fallidos para este usuario. Por seguridad, el acceso queda bloqueado durante 15 minutos.';

export interface AuthRoutesOptions {
  /** The one-time first-run token printed by `npm start`, or null when setup is not offered. */
  setupToken: string | null;
  loginAttemptsPerMinute: number;
  /** The login's password check (default: verifyPassword); tests wrap it to count the checks or to pace them. */
  checkPassword?: (password: string, stored: string) => Promise<boolean>;
}

/** Login, logout, first-run setup, and each user's own password and sessions. */
export async function authRoutes(app: FastifyInstance, opts: AuthRoutesOptions): Promise<void> {
  const { db, clock } = app.deps;
  const checkPassword = opts.checkPassword ?? verifyPassword;
  const actorOf = (request: FastifyRequest) => (request.user ? { id: request.user.id, username: request.user.username } : null);

  app.get('/login/', async (request, reply) => {
    const next = safeNext(queryValue(request.query, 'next'));
    if (request.user) return reply.redirect(next ?? '/dashboard/', 302);
    return sendPage(reply, <LoginPage ctx={pageContext(request, reply)} values={{}} errors={{}} next={next} />);
  });

  app.post(
    '/login/',
    { config: { rateLimit: { max: opts.loginAttemptsPerMinute, timeWindow: '1 minute' } } },
    async (request, reply) => {
      const form = parseForm(request.body, loginSchema);
      const next = safeNext(queryValue(request.query, 'next')) ?? (!form.ok && form.errors.next ? null : safeNext(form.values.next));
      const shown = [...form.values.username!.trim()].slice(0, USERNAME_MAX).join('');
      const again = (status: number, errs: FieldErrors) =>
        sendPage(reply, <LoginPage ctx={pageContext(request, reply)} values={{ username: shown }} errors={errs} next={next} />, status);

      if (!form.ok) return again(200, { _form: BAD_CREDENTIALS });
      const { username, password } = form.data;
      const now = clock.now();
      // Counted before the password is checked, in the database: however many arrive at once, at most five passwords
      // are checked per user name in the lock window (decision 0060).
      const attemptId = await inTransaction(db, (trx) => reserveLoginAttempt(trx, username, now));
      if (attemptId === null) return again(429, { _form: LOCKED });
      const user = await findUserByUsername(db, username);
      const usable = user !== undefined && user.is_active === 1;
      // Unknown and inactive users cost the same check as a wrong password: nothing tells them apart.
      const ok = (await checkPassword(password, usable ? user.password_hash : await dummyHash())) && usable;
      if (ok) {
        const token = await inTransaction(db, async (trx) => {
          // Refused when the password or the account changed since it was read: the password checked is no longer
          // the user's, and no session may be opened with it (decision 0061).
          if (!(await claimLogin(trx, user.id, user.password_generation, now.toISOString()))) return null;
          const opened = await openSession(trx, request, { id: user.id, generation: user.password_generation }, now);
          await releaseLoginFailures(trx, username, attemptId);
          await recordAudit(trx, { at: now, actor: { id: user.id, username: user.username }, action: 'login', entityType: 'user', entityId: user.id, requestId: String(request.id) });
          return opened;
        });
        if (token !== null) {
          giveSessionCookie(request, reply, token);
          return reply.redirect(next ?? '/dashboard/', 302);
        }
      }
      // The attempt stays counted as a failure (it was counted before the check).
      await inTransaction(db, (trx) =>
        recordAudit(trx, {
          at: now,
          actor: user ? { id: user.id, username: user.username } : null,
          action: 'login_failed',
          entityType: 'user',
          entityId: user?.id ?? null,
          changes: user ? null : { username: [...username].slice(0, USERNAME_MAX).join('') },
          requestId: String(request.id),
        }),
      );
      // Failures 1 to 5 get the form again; the lock answers the attempts after them (decisions §2).
      return again(200, { _form: BAD_CREDENTIALS });
    },
  );

  app.get('/logout/', async (request, reply) => sendPage(reply, <LogoutPage ctx={pageContext(request, reply)} />));

  app.post('/logout/', async (request, reply) => {
    const actor = actorOf(request);
    if (actor) {
      await inTransaction(db, (trx) => recordAudit(trx, { at: clock.now(), actor, action: 'logout', entityType: 'user', entityId: actor.id, requestId: String(request.id) }));
    }
    await endSession(request, reply);
    return redirectWith(reply, '/users/login/', 'info', 'Sesión cerrada.');
  });

  // First run: whoever holds the printed link creates the first administrator; 404 once any user exists.
  const setupAvailable = async (token: string | undefined): Promise<boolean> =>
    opts.setupToken !== null && token === opts.setupToken && (await countUsers(db)) === 0;

  app.get('/setup/', async (request, reply) => {
    const token = queryValue(request.query, 'token');
    if (!(await setupAvailable(token))) return reply.callNotFound();
    return sendPage(reply, <SetupPage ctx={pageContext(request, reply)} values={{}} errors={{}} token={token!} />);
  });

  app.post('/setup/', async (request, reply) => {
    const form = parseForm(request.body, setupSchema);
    if (!(await setupAvailable(form.values.token))) return reply.callNotFound();
    if (!form.ok) {
      const values = { username: form.values.username!.trim() };
      return sendPage(reply, <SetupPage ctx={pageContext(request, reply)} values={values} errors={form.errors} token={form.values.token!} />);
    }
    const { username, password } = form.data;
    const now = clock.now();
    const passwordHash = await hashPassword(password);
    let token: string;
    try {
      token = await inTransaction(db, async (trx) => {
        if ((await countUsers(trx)) > 0) throw conflict(USERNAME_TAKEN, { username });
        const id = await insertUser(trx, { username, passwordHash, isAdmin: true, now: now.toISOString() });
        await recordAudit(trx, { at: now, actor: { id, username }, action: 'user.create', entityType: 'user', entityId: id, changes: { username: [null, username], is_admin: [null, true] }, requestId: String(request.id) });
        return openSession(trx, request, { id, generation: 0 }, now);
      });
    } catch (err) {
      if (isDomainError(err, USERNAME_TAKEN)) return reply.callNotFound();
      throw err;
    }
    giveSessionCookie(request, reply, token);
    return redirectWith(reply, '/dashboard/', 'success', `Bienvenido, ${username}. La cuenta de administrador está lista.`);
  });

  const renderPassword = async (request: FastifyRequest, reply: FastifyReply, errors: FieldErrors) => {
    const rows = await listSessionsOfUser(db, request.user!.id);
    const sessions = rows.map((r) => ({ current: r.id_hash === request.sessionIdHash, createdAt: r.created_at, lastSeenAt: r.last_seen_at, ip: r.ip, userAgent: r.user_agent }));
    return sendPage(reply, <PasswordPage ctx={pageContext(request, reply)} errors={errors} sessions={sessions} timeZone={app.deps.config.timeZone} />);
  };

  app.get('/password/', async (request, reply) => renderPassword(request, reply, {}));

  app.post('/password/', async (request, reply) => {
    const me = request.user!;
    const user = await findUserById(db, me.id);
    if (!user) return reply.callNotFound();
    const form = parseForm(request.body, changePasswordSchema(user.username));
    const errors: FieldErrors = form.ok ? {} : form.errors;
    // Told with the other problems, so the form is corrected once.
    if (!errors.old_password && !(await verifyPassword(form.values.old_password!, user.password_hash))) {
      errors.old_password = 'La contraseña actual no es correcta.';
    }
    if (!form.ok || hasErrors(errors)) return renderPassword(request, reply, errors);
    const passwordHash = await hashPassword(form.data.new_password1);
    await inTransaction(db, async (trx) => {
      // The database ends every other session of the user, those being opened now included (decision 0061).
      await replacePassword(trx, me.id, passwordHash, request.sessionIdHash ?? undefined);
      await recordAudit(trx, { at: clock.now(), actor: actorOf(request), action: 'user.password_change', entityType: 'user', entityId: me.id, requestId: String(request.id) });
    });
    return redirectWith(reply, '/users/password/', 'success', 'Contraseña cambiada. Las demás sesiones abiertas se cerraron.');
  });

  app.post('/sessions/end-others/', async (request, reply) => {
    const me = request.user!.id;
    await inTransaction(db, (trx) => deleteSessionsOfUser(trx, me, request.sessionIdHash ?? undefined));
    return redirectWith(reply, '/users/password/', 'success', 'Se cerraron las demás sesiones.');
  });
}
