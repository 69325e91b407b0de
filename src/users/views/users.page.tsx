import { formatDateTimeEs } from '../../shared/dates.js';
import { FormError, SelectField, TextField, type FieldErrors, type FormValues } from '../../web/fields.js';
import { CsrfField, Layout } from '../../web/layout.js';
import type { PageContext } from '../../web/render.js';
import type { UserListRow } from '../user-admin.repository.js';
import { PASSWORD_MAX, USERNAME_MAX } from '../user.rules.js';
import { TIPOS_DOCUMENTO } from '../../patients/patient.rules.js';

const yesNo = (flag: number) => (flag === 1 ? 'Sí' : 'No');

export function UsersPage({
  ctx,
  users,
  values,
  errors,
  timeZone,
}: {
  ctx: PageContext;
  users: UserListRow[];
  values: FormValues;
  errors: FieldErrors;
  timeZone: string;
}) {
  return (
    <Layout ctx={ctx} title="Usuarios">
      <h1>Usuarios</h1>
      <p class="actions">
        <a class="button" href="/users/audit/">
          Auditoría
        </a>
        <a class="button" href="/users/documentos/">
          Documentos repetidos
        </a>
        <a class="button" href="/users/fechas/">
          Fechas inconsistentes
        </a>
        <a class="button" href="/users/export.csv">
          Exportar CSV
        </a>
        <a class="button" href="/users/rips/">
          Configuración del RIPS
        </a>
        <a class="button" href="/users/agenda/">
          Configuración de la agenda
        </a>
      </p>
      <section class="card">
        <h2>Equipo</h2>
        <div class="table-wrap" tabIndex={0} role="region" aria-label="Usuarios del equipo">
          <table class="table" data-table="users">
            <thead>
              <tr>
                <th scope="col">Usuario</th>
                <th scope="col">Administrador</th>
                <th scope="col">Activo</th>
                <th scope="col">Último ingreso</th>
                <th scope="col">Creado</th>
              </tr>
            </thead>
            <tbody>
              {users.map((u) => (
                <tr data-user-id={String(u.id)} data-active={u.is_active === 1 ? 'true' : 'false'}>
                  <td data-label="Usuario">
                    <a href={`/users/${u.id}/`}>{u.username}</a>
                  </td>
                  <td data-label="Administrador">{yesNo(u.is_admin)}</td>
                  <td data-label="Activo">
                    <span class={u.is_active === 1 ? 'badge badge-ok' : 'badge badge-bad'}>{u.is_active === 1 ? 'Activo' : 'Inactivo'}</span>
                  </td>
                  <td data-label="Último ingreso">{u.last_login_at ? formatDateTimeEs(u.last_login_at, timeZone) : 'Nunca'}</td>
                  <td data-label="Creado">{formatDateTimeEs(u.created_at, timeZone)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>
      <section class="card" id="crear">
        <h2>Crear usuario</h2>
        <form method="post" action="/users/create/" novalidate>
          <CsrfField />
          <FormError errors={errors} />
          <TextField name="username" label="Usuario" values={values} errors={errors} required maxLength={USERNAME_MAX} autocomplete="off" />
          <TextField
            name="password"
            label="Contraseña"
            type="password"
            values={{}}
            errors={errors}
            required
            maxLength={PASSWORD_MAX}
            hint="Al menos 12 caracteres, distinta del usuario."
            autocomplete="new-password"
          />
          <TextField name="password2" label="Repita la contraseña" type="password" values={{}} errors={errors} required maxLength={PASSWORD_MAX} autocomplete="new-password" />
          <div class="field">
            <label>
              <input type="checkbox" name="is_admin" value="1" checked={values.is_admin === '1'} class="checkbox" /> Administrador
            </label>
          </div>
          <button type="submit" class="button primary">
            Crear usuario
          </button>
        </form>
      </section>
    </Layout>
  );
}

export function UserDetailPage({
  ctx,
  user,
  errors,
  timeZone,
  documentValues,
}: {
  ctx: PageContext;
  user: UserListRow;
  errors: FieldErrors;
  timeZone: string;
  documentValues?: FormValues;
}) {
  const self = ctx.user?.id === user.id;
  const docValues = documentValues ?? { tipo_documento: user.tipo_documento ?? '', documento: user.documento ?? '' };
  return (
    <Layout ctx={ctx} title={`Usuario ${user.username}`}>
      <p>
        <a href="/users/">← Usuarios</a>
      </p>
      <h1>Usuario {user.username}</h1>
      <div class="grid-2">
        <section class="card">
          <h2>Datos</h2>
          <dl class="summary">
            <dt>Administrador</dt>
            <dd>{yesNo(user.is_admin)}</dd>
            <dt>Estado</dt>
            <dd data-active={user.is_active === 1 ? 'true' : 'false'}>{user.is_active === 1 ? 'Activo' : 'Inactivo'}</dd>
            <dt>Último ingreso</dt>
            <dd>{user.last_login_at ? formatDateTimeEs(user.last_login_at, timeZone) : 'Nunca'}</dd>
            <dt>Creado</dt>
            <dd>{formatDateTimeEs(user.created_at, timeZone)}</dd>
          </dl>
          {user.is_active === 1 ? (
            self ? (
              <p class="muted">No puede desactivar su propia cuenta.</p>
            ) : (
              <form
                method="post"
                action={`/users/${user.id}/deactivate/`}
                data-confirm={`¿Desactivar a ${user.username}? Sus sesiones abiertas se cerrarán de inmediato.`}
              >
                <CsrfField />
                <button type="submit" class="button danger">
                  Desactivar
                </button>
              </form>
            )
          ) : (
            <form method="post" action={`/users/${user.id}/reactivate/`}>
              <CsrfField />
              <button type="submit" class="button">
                Reactivar
              </button>
            </form>
          )}
          <p>
            <a href={`/users/audit/?usuario=${user.id}`}>Ver su actividad en la auditoría</a>
          </p>
        </section>
        <section class="card">
          <h2>Restablecer contraseña</h2>
          <p class="muted">La nueva contraseña reemplaza la anterior y cierra todas las sesiones de este usuario.</p>
          <form method="post" action={`/users/${user.id}/password/`} novalidate>
            <CsrfField />
            <FormError errors={errors} />
            <TextField
              name="password"
              label="Nueva contraseña"
              type="password"
              values={{}}
              errors={errors}
              required
              maxLength={PASSWORD_MAX}
              hint="Al menos 12 caracteres, distinta del usuario."
              autocomplete="new-password"
            />
            <TextField name="password2" label="Repita la contraseña" type="password" values={{}} errors={errors} required maxLength={PASSWORD_MAX} autocomplete="new-password" />
            <button type="submit" class="button primary">
              Restablecer contraseña
            </button>
          </form>
        </section>
        <UserDocumentForm action={`/users/${user.id}/documento/`} values={docValues} errors={errors} />
      </div>
    </Layout>
  );
}

/**
 * A user's own document (RIPS names the attending professional of each service by it): on the account page and on
 * an administrator's page of the user. `values`: the posted ones after an error, else the stored ones.
 */
export function UserDocumentForm({ action, values, errors }: { action: string; values: FormValues; errors: FieldErrors }) {
  return (
    <section class="card" id="documento">
      <h2>Documento de identidad</h2>
      <p class="muted">El RIPS identifica con él al profesional que atiende cada servicio.</p>
      <form method="post" action={action} novalidate>
        <CsrfField />
        <SelectField name="tipo_documento" label="Tipo de documento" choices={TIPOS_DOCUMENTO} values={values} errors={errors} required />
        <TextField name="documento" label="Número de documento" values={values} errors={errors} required maxLength={20} />
        <button type="submit" class="button primary">
          Guardar documento
        </button>
      </form>
    </section>
  );
}
