// The users' writes as use cases (issue 26): the administration of accounts, each user's own password and sessions,
// the first run, and the login and logout entries of the trail. Each owns its transaction and its audit entry and
// says what to show; the session cookie stays with the routes and the session plugin (plumbing).
import { recordAudit, recordAuditAlone } from '../audit/audit.repository.js';
import type { Trx } from '../db/database.js';
import type { ActionContext, Actor } from '../platform/writes/action-context.js';
import { inTransaction } from '../platform/writes/transaction.js';
import { conflict, isDomainError } from '../shared/domain-error.js';
import type { FieldErrors } from '../web/fields.js';
import { dummyHash, hashPassword, verifyPassword } from './password.js';
import { deleteSessionsOfUser, touchSession } from './session.repository.js';
import { resetPassword, setUserActive, updateUserDocument, type UserListRow } from './user-admin.repository.js';
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
import { PASSWORD_MISMATCH, USERNAME_MAX } from './user.rules.js';

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
  passwordChanged: 'Contraseña cambiada. Las demás sesiones abiertas se cerraron.',
  otherSessionsEnded: 'Se cerraron las demás sesiones.',
  wrongOldPassword: 'La contraseña actual no es correcta.',
  documentSaved: (u: string) => `Se guardó el documento de ${u}.`,
  documentUnchanged: 'El documento no cambió.',
  locked: 'Demasiados intentos fallidos para este usuario. Por seguridad, el acceso queda bloqueado durante 15 minutos.',
} as const;

export type Message = { level: 'success' | 'info' | 'error'; text: string };

function actorOf(ctx: ActionContext): Actor {
  if (!ctx.actor) throw new Error('this action is taken by a logged-in user');
  return ctx.actor;
}

/** Where a new account comes from: the administration page, or the `createuser` command (no actor). */
export type UserOrigin = 'admin' | 'cli';

/** Creates an account with its `user.create` entry; refused (field error) when the name is taken, in any case. */
export async function createUser(
  ctx: ActionContext,
  input: { username: string; password: string; isAdmin: boolean; origin: UserOrigin },
): Promise<{ ok: true; id: number } | { ok: false; errors: FieldErrors }> {
  const { username, isAdmin } = input;
  const passwordHash = await hashPassword(input.password);
  const now = ctx.clock.now();
  try {
    const id = await inTransaction(ctx.db, async (trx) => {
      const id = await insertUser(trx, { username, passwordHash, isAdmin, now: now.toISOString() });
      await recordAudit(trx, {
        at: now,
        actor: input.origin === 'cli' ? null : actorOf(ctx),
        action: 'user.create',
        entityType: 'user',
        entityId: id,
        changes:
          input.origin === 'cli'
            ? { username: [null, username], is_admin: [null, isAdmin], via: 'createuser' }
            : { username: [null, username], is_admin: [null, isAdmin], is_active: [null, true] },
        requestId: ctx.requestId,
      });
      return id;
    });
    return { ok: true, id };
  } catch (err) {
    if (isDomainError(err, USERNAME_TAKEN)) return { ok: false, errors: { username: USER_MSG.taken } };
    throw err;
  }
}

/**
 * Deactivates (ending every session of the user) or reactivates an account; an administrator cannot deactivate
 * their own. Null for an unknown user.
 */
export async function changeUserActive(ctx: ActionContext, input: { userId: number; active: boolean }): Promise<Message | null> {
  const me = actorOf(ctx);
  const { active } = input;
  const user = await findUserById(ctx.db, input.userId);
  if (!user) return null;
  if (!active && user.id === me.id) return { level: 'error', text: USER_MSG.notSelf };
  if ((user.is_active === 1) === active) {
    return { level: 'info', text: active ? USER_MSG.alreadyActive(user.username) : USER_MSG.alreadyInactive(user.username) };
  }
  await inTransaction(ctx.db, async (trx) => {
    await setUserActive(trx, user.id, active);
    await recordAudit(trx, {
      at: ctx.clock.now(),
      actor: me,
      action: active ? 'user.reactivate' : 'user.deactivate',
      entityType: 'user',
      entityId: user.id,
      changes: { is_active: [!active, active] },
      requestId: ctx.requestId,
    });
  });
  return { level: 'success', text: active ? USER_MSG.reactivated(user.username) : USER_MSG.deactivated(user.username) };
}

/**
 * An administrator sets another user's password (already validated): every session of that user ends, but the
 * administrator's own (`currentSession`) when resetting their own.
 */
export async function resetUserPassword(
  ctx: ActionContext,
  input: { user: Pick<UserListRow, 'id' | 'username'>; password: string; currentSession: string | null },
): Promise<Message> {
  const me = actorOf(ctx);
  const { user } = input;
  const passwordHash = await hashPassword(input.password);
  await inTransaction(ctx.db, async (trx) => {
    await resetPassword(trx, user.id, passwordHash, user.id === me.id ? (input.currentSession ?? undefined) : undefined);
    await recordAudit(trx, {
      at: ctx.clock.now(),
      actor: me,
      action: 'user.password_reset',
      entityType: 'user',
      entityId: user.id,
      changes: { password: ['(anterior)', '(restablecida)'] },
      requestId: ctx.requestId,
    });
  });
  return { level: 'success', text: USER_MSG.passwordReset(user.username) };
}

/**
 * The logged-in user changes their own password: the current one must be right (said with the form's other
 * problems, `formErrors`, so the form is corrected once); the other sessions end. Null for a vanished user.
 */
export async function changeOwnPassword(
  ctx: ActionContext,
  input: { oldPassword: string; newPassword: string | null; formErrors: FieldErrors; currentSession: string | null },
): Promise<{ ok: true; message: Message } | { ok: false; errors: FieldErrors } | null> {
  const me = actorOf(ctx);
  const user = await findUserById(ctx.db, me.id);
  if (!user) return null;
  const errors: FieldErrors = { ...input.formErrors };
  if (!errors.old_password && !(await verifyPassword(input.oldPassword, user.password_hash))) errors.old_password = USER_MSG.wrongOldPassword;
  if (input.newPassword === null || Object.keys(errors).length > 0) return { ok: false, errors };
  const passwordHash = await hashPassword(input.newPassword);
  await inTransaction(ctx.db, async (trx) => {
    // The database ends every other session of the user, those being opened now included (decision 0061).
    await replacePassword(trx, me.id, passwordHash, input.currentSession ?? undefined);
    await recordAudit(trx, { at: ctx.clock.now(), actor: me, action: 'user.password_change', entityType: 'user', entityId: me.id, requestId: ctx.requestId });
  });
  return { ok: true, message: { level: 'success', text: USER_MSG.passwordChanged } };
}

/** Ends every session of the logged-in user but the current one. */
export async function endOtherSessions(ctx: ActionContext, currentSession: string | null): Promise<Message> {
  const me = actorOf(ctx);
  await inTransaction(ctx.db, (trx) => deleteSessionsOfUser(trx, me.id, currentSession ?? undefined));
  return { level: 'success', text: USER_MSG.otherSessionsEnded };
}

/**
 * First run: the first administrator, only while there is no user at all (null once one exists), with its session
 * opened in the same transaction.
 */
export async function setUpFirstAdmin<Token>(
  ctx: ActionContext,
  input: { username: string; password: string; openSession: SessionOpener<Token> },
): Promise<{ session: Token } | null> {
  const { username } = input;
  const now = ctx.clock.now();
  const passwordHash = await hashPassword(input.password);
  try {
    return await inTransaction(ctx.db, async (trx) => {
      if ((await countUsers(trx)) > 0) throw conflict(USERNAME_TAKEN, { username });
      const id = await insertUser(trx, { username, passwordHash, isAdmin: true, now: now.toISOString() });
      await recordAudit(trx, {
        at: now,
        actor: { id, username },
        action: 'user.create',
        entityType: 'user',
        entityId: id,
        changes: { username: [null, username], is_admin: [null, true] },
        requestId: ctx.requestId,
      });
      return { session: await input.openSession(trx, { id, generation: 0 }, now) };
    });
  } catch (err) {
    if (isDomainError(err, USERNAME_TAKEN)) return null;
    throw err;
  }
}

export type LoginResult<Token> = { kind: 'locked' } | { kind: 'refused' } | { kind: 'accepted'; user: Actor; session: Token };

/** Opens a session in the login's transaction (the session plugin's openSession, bound to the request). */
export type SessionOpener<Token> = (trx: Trx, user: { id: number; generation: number }, now: Date) => Promise<Token>;

/**
 * A login attempt (decisions §2). It is counted before the password is checked, in the database (decision 0060):
 * past five failures in the window it is locked. Unknown and inactive users cost the same check as a wrong password.
 * An accepted one claims the login under the password generation it checked and opens the session in the same
 * transaction (decision 0061), writing `login`; any other outcome writes `login_failed` and stays counted.
 */
export async function logIn<Token>(
  ctx: ActionContext,
  input: {
    username: string;
    password: string;
    openSession: SessionOpener<Token>;
    checkPassword?: (password: string, stored: string) => Promise<boolean>;
  },
): Promise<LoginResult<Token>> {
  const { db } = ctx;
  const { username, password } = input;
  const checkPassword = input.checkPassword ?? verifyPassword;
  const now = ctx.clock.now();
  const attemptId = await inTransaction(db, (trx) => reserveLoginAttempt(trx, username, now));
  if (attemptId === null) return { kind: 'locked' };
  const user = await findUserByUsername(db, username);
  const usable = user !== undefined && user.is_active === 1;
  const ok = (await checkPassword(password, usable ? user.password_hash : await dummyHash())) && usable;
  if (ok) {
    const actor = { id: user.id, username: user.username };
    const session = await inTransaction(db, async (trx) => {
      // Refused when the password or the account changed since it was read: the password checked is no longer
      // the user's, and no session may be opened with it (decision 0061).
      if (!(await claimLogin(trx, user.id, user.password_generation, now.toISOString()))) return null;
      const opened = await input.openSession(trx, { id: user.id, generation: user.password_generation }, now);
      await releaseLoginFailures(trx, username, attemptId);
      await recordAudit(trx, { at: now, actor, action: 'login', entityType: 'user', entityId: user.id, requestId: ctx.requestId });
      return { opened };
    });
    if (session !== null) return { kind: 'accepted', user: actor, session: session.opened };
  }
  // The attempt stays counted as a failure (it was counted before the check).
  await recordAuditAlone(db, {
    at: now,
    actor: user ? { id: user.id, username: user.username } : null,
    action: 'login_failed',
    entityType: 'user',
    entityId: user?.id ?? null,
    changes: user ? null : { username: [...username].slice(0, USERNAME_MAX).join('') },
    requestId: ctx.requestId,
  });
  return { kind: 'refused' };
}

/** «Seguir trabajando» (decision 0110): the session's idle time starts again now. Not audited: it changes no record. */
export async function renewSession(ctx: ActionContext, sessionIdHash: string | null): Promise<void> {
  if (sessionIdHash === null) return;
  const now = ctx.clock.now().toISOString();
  await inTransaction(ctx.db, (trx) => touchSession(trx, sessionIdHash, now));
}

/** The end of the logged-in user's session, in the trail (the session itself is ended by the plumbing). */
export async function recordLogout(ctx: ActionContext): Promise<void> {
  const actor = ctx.actor;
  if (!actor) return;
  await recordAuditAlone(ctx.db, { at: ctx.clock.now(), actor, action: 'logout', entityType: 'user', entityId: actor.id, requestId: ctx.requestId });
}

/**
 * Sets a user's own document (the user on their account page, or an administrator on the user's page), with its
 * `user.document` entry. Null for an unknown user. Whether the actor may change it is the route's guard.
 */
export async function setUserDocument(
  ctx: ActionContext,
  input: { userId: number; tipo_documento: string; documento: string },
): Promise<Message | null> {
  const me = actorOf(ctx);
  const user = await findUserById(ctx.db, input.userId);
  if (!user) return null;
  if (user.tipo_documento === input.tipo_documento && user.documento === input.documento) return { level: 'info', text: USER_MSG.documentUnchanged };
  await inTransaction(ctx.db, async (trx) => {
    await updateUserDocument(trx, user.id, input.tipo_documento, input.documento);
    await recordAudit(trx, {
      at: ctx.clock.now(),
      actor: me,
      action: 'user.document',
      entityType: 'user',
      entityId: user.id,
      changes: {
        ...(user.tipo_documento !== input.tipo_documento ? { tipo_documento: [user.tipo_documento || null, input.tipo_documento] } : {}),
        ...(user.documento !== input.documento ? { documento: [user.documento || null, input.documento] } : {}),
      },
      requestId: ctx.requestId,
    });
  });
  return { level: 'success', text: USER_MSG.documentSaved(user.username) };
}
