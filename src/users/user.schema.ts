// The users' forms (login, first-run setup, own password, an administrator's create user and set password) as zod
// schemas over the rules of user.rules.ts, each message beside its field.

import { z } from 'zod';
import { acrossFields, fail, withContext } from '../web/form.js';
import { charCount } from '../shared/text.js';
import { choiceField, documentoField } from '../patients/patient.field-parsers.js';
import { documentoProblem, TIPOS_DOCUMENTO, type TipoDocumento } from '../patients/patient.rules.js';
import { PASSWORD_MAX, PASSWORD_MISMATCH, USERNAME_MAX, validatePassword, validateUsername } from './user.rules.js';

/** The one answer to a login that cannot succeed, whatever was wrong (nothing tells which part). */
export const BAD_CREDENTIALS = 'Usuario o contraseña incorrectos.';

/** The login form: a user name (trimmed) and a password, present and within their lengths; `next` as sent. */
export const loginSchema = z.object({
  username: z.string().transform((raw, ctx) => {
    const username = raw.trim();
    return username !== '' && charCount(username) <= USERNAME_MAX ? username : fail(ctx, BAD_CREDENTIALS);
  }),
  password: z.string().transform((raw, ctx) => (raw !== '' && charCount(raw) <= PASSWORD_MAX ? raw : fail(ctx, BAD_CREDENTIALS))),
  next: z.string(),
});

/**
 * A new password (validatePassword, against the user's name) and its repetition, which must be the same: both are
 * reported at once (issue 29, point 8: the setup said one problem per try).
 */
function checkNewPassword<F extends string>(
  valid: Partial<Record<F, string>>,
  [field, repeated]: readonly [F, F],
  username: string,
  failOn: (field: F, message: string) => void,
): void {
  const password = valid[field] ?? '';
  const weak = validatePassword(password, username);
  if (weak !== null) failOn(field, weak);
  if (password !== valid[repeated]) failOn(repeated, PASSWORD_MISMATCH);
}

const trimmed = z.string().transform((raw) => raw.trim());

/** A new account's fields: its name (trimmed) and password twice; the password is checked against that name. */
const NEW_USER_FIELDS = { username: trimmed, password: z.string(), password2: z.string() };

const newUserRules = acrossFields<{ username: string; password: string; password2: string }>((valid, failOn) => {
  const username = valid.username ?? '';
  const problem = validateUsername(username);
  if (problem !== null) failOn('username', problem);
  checkNewPassword(valid, ['password', 'password2'], username, failOn);
});

/** The first-run form: the printed token and the first administrator. */
export const setupSchema = z.object({ token: z.string(), ...NEW_USER_FIELDS }).check(newUserRules);

/** An administrator's form that creates a user; a ticked is_admin (any value) makes an administrator. */
export const createUserSchema = z.object({ ...NEW_USER_FIELDS, is_admin: z.string().transform((v) => v !== '') }).check(newUserRules);

/** An administrator's form that sets the password of the user `username`. */
const setPassword = withContext((username: () => string) =>
  z
    .object({ password: z.string(), password2: z.string() })
    .check(acrossFields((valid, failOn) => checkNewPassword(valid, ['password', 'password2'], username(), failOn))),
);

export const setPasswordSchema = (username: string) => setPassword(username);

/** A user's form that changes their own password (the current one is verified by the route, against its hash). */
const changePassword = withContext((username: () => string) =>
  z
    .object({ old_password: z.string(), new_password1: z.string(), new_password2: z.string() })
    .check(acrossFields((valid, failOn) => checkNewPassword(valid, ['new_password1', 'new_password2'], username(), failOn))),
);

export const changePasswordSchema = (username: string) => changePassword(username);

/**
 * A user's own document (issue 27): RIPS names the attending professional of each service by it. The same rules as
 * a patient's documento (its canonical form, digits for CC/TI/RC).
 */
export const userDocumentSchema = z
  .object({ tipo_documento: choiceField(TIPOS_DOCUMENTO), documento: documentoField })
  .check(
    acrossFields<{ tipo_documento: string; documento: string }>((valid, failOn) => {
      if (valid.tipo_documento === undefined || valid.documento === undefined) return;
      const problem = documentoProblem(valid.tipo_documento as TipoDocumento, valid.documento);
      if (problem !== null) failOn('documento', problem);
    }),
  );
