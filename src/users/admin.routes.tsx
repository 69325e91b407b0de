import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { recordAudit } from '../audit/audit.repository.js';
import type { FieldErrors } from '../web/fields.js';
import { parseForm, parseId } from '../web/form.js';
import { pageContext, redirectWith, sendPage } from '../web/render.js';
import { requireAdmin } from '../web/guard.js';
import { hashPassword } from './password.js';
import { listUsers, resetPassword, setUserActive, type UserListRow } from './user-admin.repository.js';
import { isDomainError } from '../shared/domain-error.js';
import { findUserById, insertUser, USERNAME_TAKEN } from './user.repository.js';
import { PASSWORD_MISMATCH } from './user.rules.js';
import { createUserSchema, setPasswordSchema } from './user.schema.js';
import { UserDetailPage, UsersPage } from './views/users.page.js';
import { inTransaction } from '../platform/writes/transaction.js';
import { listDocumentoCollisions } from '../patients/identity.repository.js';
import { DocumentoCollisionsPage } from '../patients/views/collisions.page.js';
import { listDateViolations } from '../ingresos/date-violations.repository.js';
import { DateViolationsPage } from '../ingresos/views/date-violations.page.js';

export const USER_MSG = {
  created: (u: string) => `Se creó el usuario ${u}.`,
  taken: 'Ese nombre de usuario ya existe.',
  mismatch: PASSWORD_MISMATCH,
  deactivated: (u: string) => `El usuario ${u} quedó desactivado y sus sesiones se cerraron.`,
  reactivated: (u: string) => `El usuario ${u} fue reactivado.`,
  alreadyInactive: (u: string) => `El usuario ${u} ya estaba desactivado.`,
  alreadyActive: (u: string) => `El usuario ${u} ya estaba activo.`,
  notSelf: 'No puede desactivar su propia cuenta. Pida a otro administrador que lo haga.',
  passwordReset: (u: string) => `Se restableció la contraseña de ${u}; sus sesiones abiertas se cerraron.`,
} as const;

/** Routes under /users (administrators): the team's accounts. Login and own password live in auth.routes. */
export async function userAdminRoutes(app: FastifyInstance): Promise<void> {
  const { db, clock, config } = app.deps;
  const admin = { preHandler: requireAdmin };
  const actorOf = (request: FastifyRequest) => ({ id: request.user!.id, username: request.user!.username });

  const renderList = async (request: FastifyRequest, reply: FastifyReply, values: Record<string, string>, errors: FieldErrors) =>
    sendPage(reply, <UsersPage ctx={pageContext(request, reply)} users={await listUsers(db)} values={values} errors={errors} timeZone={config.timeZone} />);

  const renderDetail = (request: FastifyRequest, reply: FastifyReply, user: UserListRow, errors: FieldErrors) =>
    sendPage(reply, <UserDetailPage ctx={pageContext(request, reply)} user={user} errors={errors} timeZone={config.timeZone} />);

  /** The user of the path, or null after answering 404. */
  const targetOf = async (request: FastifyRequest, reply: FastifyReply): Promise<UserListRow | null> => {
    const id = parseId((request.params as { id?: string }).id);
    const user = id === null ? undefined : await findUserById(db, id);
    if (!user) {
      await reply.callNotFound();
      return null;
    }
    return user;
  };

  app.get('/', admin, async (request, reply) => renderList(request, reply, {}, {}));

  // Patients whose documentos collided when keys became canonical (decision 0030); rendered per request.
  app.get('/documentos/', admin, async (request, reply) =>
    sendPage(reply, <DocumentoCollisionsPage ctx={pageContext(request, reply)} rows={await listDocumentoCollisions(db)} />),
  );

  // Stored rows whose dates break a rule the database now holds on every write (decision 0063); rendered per request.
  app.get('/fechas/', admin, async (request, reply) => {
    const { rows, truncated } = await listDateViolations(db);
    return sendPage(reply, <DateViolationsPage ctx={pageContext(request, reply)} rows={rows} truncated={truncated} />);
  });

  app.post('/create/', admin, async (request, reply) => {
    const form = parseForm(request.body, createUserSchema);
    const kept = { username: form.values.username!.trim().slice(0, 150), is_admin: form.values.is_admin !== '' ? '1' : '' };
    if (!form.ok) return renderList(request, reply, kept, form.errors);
    const { username, password, is_admin: isAdminFlag } = form.data;
    const passwordHash = await hashPassword(password);
    const now = clock.now();
    try {
      await inTransaction(db, async (trx) => {
        const id = await insertUser(trx, { username, passwordHash, isAdmin: isAdminFlag, now: now.toISOString() });
        await recordAudit(trx, {
          at: now,
          actor: actorOf(request),
          action: 'user.create',
          entityType: 'user',
          entityId: id,
          changes: { username: [null, username], is_admin: [null, isAdminFlag], is_active: [null, true] },
          requestId: String(request.id),
        });
      });
    } catch (err) {
      if (isDomainError(err, USERNAME_TAKEN)) return renderList(request, reply, kept, { username: USER_MSG.taken });
      throw err;
    }
    return redirectWith(reply, '/users/', 'success', USER_MSG.created(username));
  });

  app.get('/:id/', admin, async (request, reply) => {
    const user = await targetOf(request, reply);
    if (!user) return reply;
    return renderDetail(request, reply, user, {});
  });

  const changeActive = (active: boolean) => async (request: FastifyRequest, reply: FastifyReply) => {
    const user = await targetOf(request, reply);
    if (!user) return reply;
    const back = `/users/${user.id}/`;
    if (!active && user.id === request.user!.id) return redirectWith(reply, back, 'error', USER_MSG.notSelf);
    if ((user.is_active === 1) === active) {
      return redirectWith(reply, back, 'info', active ? USER_MSG.alreadyActive(user.username) : USER_MSG.alreadyInactive(user.username));
    }
    await inTransaction(db, async (trx) => {
      await setUserActive(trx, user.id, active);
      await recordAudit(trx, {
        at: clock.now(),
        actor: actorOf(request),
        action: active ? 'user.reactivate' : 'user.deactivate',
        entityType: 'user',
        entityId: user.id,
        changes: { is_active: [!active, active] },
        requestId: String(request.id),
      });
    });
    return redirectWith(reply, back, 'success', active ? USER_MSG.reactivated(user.username) : USER_MSG.deactivated(user.username));
  };
  app.post('/:id/deactivate/', admin, changeActive(false));
  app.post('/:id/reactivate/', admin, changeActive(true));

  app.post('/:id/password/', admin, async (request, reply) => {
    const user = await targetOf(request, reply);
    if (!user) return reply;
    const form = parseForm(request.body, setPasswordSchema(user.username));
    if (!form.ok) return renderDetail(request, reply, user, form.errors);
    const passwordHash = await hashPassword(form.data.password);
    await inTransaction(db, async (trx) => {
      await resetPassword(trx, user.id, passwordHash, user.id === request.user!.id ? (request.sessionIdHash ?? undefined) : undefined);
      await recordAudit(trx, {
        at: clock.now(),
        actor: actorOf(request),
        action: 'user.password_reset',
        entityType: 'user',
        entityId: user.id,
        changes: { password: ['(anterior)', '(restablecida)'] },
        requestId: String(request.id),
      });
    });
    return redirectWith(reply, `/users/${user.id}/`, 'success', USER_MSG.passwordReset(user.username));
  });
}
