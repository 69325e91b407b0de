import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { FieldErrors } from '../web/fields.js';
import { parseForm, parseId } from '../web/form.js';
import { pageContext, redirectWith, sendPage } from '../web/render.js';
import { requireAdmin } from '../web/guard.js';
import { actionContext } from '../web/action-context.js';
import { changeUserActive, createUser, resetUserPassword, setUserDocument, USER_MSG } from './user.actions.js';
import { listUsers, type UserListRow } from './user-admin.repository.js';
import { findUserById } from './user.repository.js';
import { createUserSchema, setPasswordSchema, userDocumentSchema } from './user.schema.js';
import { UserDetailPage, UsersPage } from './views/users.page.js';
import { listDateViolations } from '../ingresos/date-violations.repository.js';
import { DateViolationsPage } from '../ingresos/views/date-violations.page.js';

/** Routes under /users (administrators): the team's accounts. Login and own password live in auth.routes. */
export async function userAdminRoutes(app: FastifyInstance): Promise<void> {
  const { db, config } = app.deps;
  const admin = { preHandler: requireAdmin };

  const renderList = async (request: FastifyRequest, reply: FastifyReply, values: Record<string, string>, errors: FieldErrors) =>
    sendPage(reply, <UsersPage ctx={pageContext(request, reply)} users={await listUsers(db)} values={values} errors={errors} timeZone={config.timeZone} />);

  const renderDetail = (request: FastifyRequest, reply: FastifyReply, user: UserListRow, errors: FieldErrors, documentValues?: Record<string, string>) =>
    sendPage(reply, <UserDetailPage ctx={pageContext(request, reply)} user={user} errors={errors} timeZone={config.timeZone} documentValues={documentValues} />);

  /** The user of the path, or null after answering 404. */
  const targetOf = async (request: FastifyRequest, reply: FastifyReply): Promise<UserListRow | null> => {
    const id = parseId((request.params as { id?: string }).id);
    const user = id === null ? undefined : await findUserById(db, id);
    if (!user) {
      reply.callNotFound();
      return null;
    }
    return user;
  };

  app.get('/', admin, async (request, reply) => renderList(request, reply, {}, {}));

  // Stored rows whose dates break a rule the database now holds on every write (decision 0063); rendered per request.
  app.get('/fechas/', admin, async (request, reply) => {
    const { rows, truncated } = await listDateViolations(db);
    return sendPage(reply, <DateViolationsPage ctx={pageContext(request, reply)} rows={rows} truncated={truncated} />);
  });

  app.post('/create/', admin, async (request, reply) => {
    const form = parseForm(request.body, createUserSchema);
    const kept = { username: form.values.username!.trim().slice(0, 150), is_admin: form.values.is_admin !== '' ? '1' : '' };
    if (!form.ok) return renderList(request, reply, kept, form.errors);
    const { username, password, is_admin: isAdmin } = form.data;
    const created = await createUser(actionContext(request), { username, password, isAdmin, origin: 'admin' });
    if (!created.ok) return renderList(request, reply, kept, created.errors);
    return redirectWith(reply, '/users/', 'success', USER_MSG.created(username));
  });

  app.get('/:id/', admin, async (request, reply) => {
    const user = await targetOf(request, reply);
    if (!user) return reply;
    return renderDetail(request, reply, user, {});
  });

  const changeActive = (active: boolean) => async (request: FastifyRequest, reply: FastifyReply) => {
    const userId = parseId((request.params as { id?: string }).id);
    const message = userId === null ? null : await changeUserActive(actionContext(request), { userId, active });
    if (!message) return reply.callNotFound();
    return redirectWith(reply, `/users/${userId}/`, message.level, message.text);
  };
  app.post('/:id/deactivate/', admin, changeActive(false));
  app.post('/:id/reactivate/', admin, changeActive(true));

  app.post('/:id/password/', admin, async (request, reply) => {
    const user = await targetOf(request, reply);
    if (!user) return reply;
    const form = parseForm(request.body, setPasswordSchema(user.username));
    if (!form.ok) return renderDetail(request, reply, user, form.errors);
    const message = await resetUserPassword(actionContext(request), { user, password: form.data.password, currentSession: request.sessionIdHash });
    return redirectWith(reply, `/users/${user.id}/`, message.level, message.text);
  });

  app.post('/:id/documento/', admin, async (request, reply) => {
    const user = await targetOf(request, reply);
    if (!user) return reply;
    const form = parseForm(request.body, userDocumentSchema);
    if (!form.ok) return renderDetail(request, reply, user, form.errors, { tipo_documento: form.values.tipo_documento ?? '', documento: form.values.documento ?? '' });
    const message = await setUserDocument(actionContext(request), { userId: user.id, ...form.data });
    return redirectWith(reply, `/users/${user.id}/`, message!.level, message!.text);
  });
}
