import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { FieldErrors } from '../web/fields.js';
import { actionContext } from '../web/action-context.js';
import { parseForm, queryValue } from '../web/form.js';
import { pageContext, redirectWith, sendPage } from '../web/render.js';
import { endSession, FORM_RESTORED_TEXT, giveRestoreCookie, giveSessionCookie, openSession } from './session.plugin.js';
import { pendingFormPage } from './pending-form.repository.js';
import { pendingFormNotBefore } from './pending-form.rules.js';
import { listSessionsOfUser } from './session.repository.js';
import { changeOwnPassword, endOtherSessions, logIn, recordLogout, renewSession, setUpFirstAdmin, setUserDocument, USER_MSG, type SessionOpener } from './user.actions.js';
import { countUsers, findUserById } from './user.repository.js';
import { safeNext, USERNAME_MAX } from './user.rules.js';
import { BAD_CREDENTIALS, changePasswordSchema, loginSchema, setupSchema, userDocumentSchema } from './user.schema.js';
import { LoginPage, LogoutPage, SetupPage } from './views/login.page.js';
import { PasswordPage } from './views/password.page.js';

export interface AuthRoutesOptions {
  /** The one-time first-run token printed by `npm start`, or null when setup is not offered. */
  setupToken: string | null;
  loginAttemptsPerMinute: number;
  /** The login's password check (default: verifyPassword); tests wrap it to count the checks or to pace them. */
  checkPassword?: (password: string, stored: string) => Promise<boolean>;
}

/** Login, logout, first-run setup, and each user's own password and sessions. */
export async function authRoutes(app: FastifyInstance, opts: AuthRoutesOptions): Promise<void> {
  const { db } = app.deps;

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
      const opener: SessionOpener<string> = (trx, user, now) => openSession(trx, request, user, now);
      const result = await logIn(actionContext(request), { username, password, openSession: opener, checkPassword: opts.checkPassword });
      if (result.kind === 'locked') return again(429, { _form: USER_MSG.locked });
      // Failures 1 to 5 get the form again; the lock answers the attempts after them (decisions §2).
      if (result.kind === 'refused') return again(200, { _form: BAD_CREDENTIALS });
      giveSessionCookie(request, reply, result.session);
      // A form this user posted after their last session ended comes back on its page (decision 0110).
      const kept = await pendingFormPage(db, result.user.id, pendingFormNotBefore(app.deps.clock.now()).toISOString());
      if (kept !== null) {
        giveRestoreCookie(reply);
        return redirectWith(reply, kept, 'warning', FORM_RESTORED_TEXT);
      }
      return reply.redirect(next ?? '/dashboard/', 302);
    },
  );

  // «Seguir trabajando»: the idle warning renews the session without leaving the page (a request with the session
  // is activity; this one marks it at once).
  app.post('/session/renew/', async (request, reply) => {
    await renewSession(actionContext(request), request.sessionIdHash);
    return reply.code(204).header('cache-control', 'no-store').send();
  });

  app.get('/logout/', async (request, reply) => sendPage(reply, <LogoutPage ctx={pageContext(request, reply)} />));

  app.post('/logout/', async (request, reply) => {
    await recordLogout(actionContext(request));
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
    const opener: SessionOpener<string> = (trx, user, now) => openSession(trx, request, user, now);
    const setUp = await setUpFirstAdmin(actionContext(request), { username, password, openSession: opener });
    if (setUp === null) return reply.callNotFound();
    giveSessionCookie(request, reply, setUp.session);
    return redirectWith(reply, '/dashboard/', 'success', `Bienvenido, ${username}. La cuenta de administrador está lista.`);
  });

  const renderPassword = async (request: FastifyRequest, reply: FastifyReply, errors: FieldErrors, posted?: Record<string, string>) => {
    const rows = await listSessionsOfUser(db, request.user!.id);
    const me = await findUserById(db, request.user!.id);
    const documentValues = posted ?? { tipo_documento: me?.tipo_documento ?? '', documento: me?.documento ?? '' };
    const sessions = rows.map((r) => ({ current: r.id_hash === request.sessionIdHash, createdAt: r.created_at, lastSeenAt: r.last_seen_at, ip: r.ip, userAgent: r.user_agent }));
    return sendPage(reply, <PasswordPage ctx={pageContext(request, reply)} errors={errors} sessions={sessions} timeZone={app.deps.config.timeZone} documentValues={documentValues} />);
  };

  app.get('/password/', async (request, reply) => renderPassword(request, reply, {}));

  app.post('/password/', async (request, reply) => {
    const form = parseForm(request.body, changePasswordSchema(request.user!.username));
    const result = await changeOwnPassword(actionContext(request), {
      oldPassword: form.values.old_password!,
      newPassword: form.ok ? form.data.new_password1 : null,
      formErrors: form.ok ? {} : form.errors,
      currentSession: request.sessionIdHash,
    });
    if (!result) return reply.callNotFound();
    if (!result.ok) return renderPassword(request, reply, result.errors);
    return redirectWith(reply, '/users/password/', result.message.level, result.message.text);
  });

  // The user's own document (RIPS: the attending professional of a service).
  app.post('/password/documento/', async (request, reply) => {
    const form = parseForm(request.body, userDocumentSchema);
    if (!form.ok) return renderPassword(request, reply, form.errors, { tipo_documento: form.values.tipo_documento ?? '', documento: form.values.documento ?? '' });
    const message = await setUserDocument(actionContext(request), { userId: request.user!.id, ...form.data });
    if (!message) return reply.callNotFound();
    return redirectWith(reply, '/users/password/', message.level, message.text);
  });

  app.post('/sessions/end-others/', async (request, reply) => {
    const message = await endOtherSessions(actionContext(request), request.sessionIdHash);
    return redirectWith(reply, '/users/password/', message.level, message.text);
  });
}
