import { formatDateTimeEs } from '../../shared/dates.js';
import { FormError, TextField, type FieldErrors, type FormValues } from '../../web/fields.js';
import { CsrfField, Layout } from '../../web/layout.js';
import type { PageContext } from '../../web/render.js';
import { UserDocumentForm } from './users.page.js';

export interface OpenSession {
  current: boolean;
  createdAt: string;
  lastSeenAt: string;
  ip: string | null;
  userAgent: string | null;
}

export function PasswordPage({
  ctx,
  errors,
  sessions,
  timeZone,
  documentValues,
}: {
  ctx: PageContext;
  errors: FieldErrors;
  sessions: OpenSession[];
  timeZone: string;
  /** the user's document: stored, or as posted after an error */
  documentValues: FormValues;
}) {
  const empty: FormValues = {};
  const others = sessions.filter((s) => !s.current).length;
  return (
    <Layout ctx={ctx} title="Mi cuenta">
      <h1>Mi cuenta</h1>
      <div class="grid-2">
        <section class="card">
          <h2>Cambiar contraseña</h2>
          <form method="post" action="/users/password/" novalidate>
            <CsrfField />
            <FormError errors={errors} />
            <TextField name="old_password" label="Contraseña actual" type="password" values={empty} errors={errors} required maxLength={128} autocomplete="current-password" />
            <TextField name="new_password1" label="Nueva contraseña" type="password" values={empty} errors={errors} required maxLength={128} hint="Al menos 12 caracteres, distinta del usuario." autocomplete="new-password" />
            <TextField name="new_password2" label="Repita la nueva contraseña" type="password" values={empty} errors={errors} required maxLength={128} autocomplete="new-password" />
            <button type="submit" class="button primary">
              Cambiar contraseña
            </button>
          </form>
        </section>
        <UserDocumentForm action="/users/password/documento/" values={documentValues} errors={errors} />
        <section class="card">
          <h2>Sesiones abiertas</h2>
          <div class="table-wrap" tabIndex={0} role="region" aria-label="Sesiones abiertas">
          <table class="table">
            <thead>
              <tr>
                <th scope="col">Inicio</th>
                <th scope="col">Última actividad</th>
                <th scope="col">Equipo</th>
              </tr>
            </thead>
            <tbody>
              {sessions.map((s) => (
                <tr>
                  <td data-label="Inicio">{formatDateTimeEs(s.createdAt, timeZone)}</td>
                  <td data-label="Última actividad">{formatDateTimeEs(s.lastSeenAt, timeZone)}</td>
                  <td data-label="Equipo">
                    {(s.userAgent ?? 'desconocido').slice(0, 60)}
                    {s.current && <strong> (esta sesión)</strong>}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          </div>
          {others > 0 && (
            <form method="post" action="/users/sessions/end-others/">
              <CsrfField />
              <button type="submit" class="button">
                {others === 1 ? 'Cerrar la otra sesión' : `Cerrar las otras ${others} sesiones`}
              </button>
            </form>
          )}
        </section>
      </div>
    </Layout>
  );
}
