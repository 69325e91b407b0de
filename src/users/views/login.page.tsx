import { ErrorSummary, FormError, TextField, type FieldErrors, type FormValues } from '../../web/fields.js';
import { CsrfField, Layout } from '../../web/layout.js';
import type { PageContext } from '../../web/render.js';

const SETUP_LABELS = { username: 'Usuario', password: 'Contraseña', password2: 'Repita la contraseña' } as const;

export function LoginPage({ ctx, values, errors, next }: { ctx: PageContext; values: FormValues; errors: FieldErrors; next: string | null }) {
  return (
    <Layout ctx={ctx} title="Iniciar sesión">
      <section class="narrow card">
        <h1>Iniciar sesión</h1>
        <p class="muted">Programa de apnea del sueño e insomnio.</p>
        <form method="post" action={next ? `/users/login/?next=${encodeURIComponent(next)}` : '/users/login/'} novalidate>
          <CsrfField />
          {/* Takes the focus when the page opens (issue 29, point 8). */}
          <FormError errors={errors} focus />
          <TextField name="username" label="Usuario" values={values} errors={errors} required maxLength={150} autocomplete="username" />
          <TextField name="password" label="Contraseña" type="password" values={{}} errors={errors} required maxLength={128} autocomplete="current-password" />
          <button type="submit" class="button primary">
            Entrar
          </button>
        </form>
      </section>
    </Layout>
  );
}

export function LogoutPage({ ctx }: { ctx: PageContext }) {
  return (
    <Layout ctx={ctx} title="Cerrar sesión">
      <section class="narrow card">
        <h1>Cerrar sesión</h1>
        <p>¿Desea cerrar su sesión en este equipo?</p>
        <form method="post" action="/users/logout/">
          <CsrfField />
          <button type="submit" class="button primary">
            Cerrar sesión
          </button>
        </form>
      </section>
    </Layout>
  );
}

export function SetupPage({ ctx, values, errors, token }: { ctx: PageContext; values: FormValues; errors: FieldErrors; token: string }) {
  return (
    <Layout ctx={ctx} title="Configuración inicial">
      <section class="narrow card">
        <h1>Configuración inicial</h1>
        <p>Cree la cuenta del primer administrador. Este enlace deja de funcionar en cuanto exista un usuario.</p>
        <form method="post" action="/users/setup/" novalidate>
          <CsrfField />
          <input type="hidden" name="token" value={token} />
          {/* Every problem at once, taking the focus when the page opens (issue 29, point 8). */}
          <ErrorSummary errors={errors} labels={SETUP_LABELS} intro="Corrija lo siguiente para crear la cuenta:" />
          <TextField name="username" label="Usuario" values={values} errors={errors} required maxLength={150} autocomplete="username" />
          <TextField name="password" label="Contraseña" type="password" values={{}} errors={errors} required maxLength={128} hint="Al menos 12 caracteres, distinta del usuario." autocomplete="new-password" />
          <TextField name="password2" label="Repita la contraseña" type="password" values={{}} errors={errors} required maxLength={128} autocomplete="new-password" />
          <button type="submit" class="button primary">
            Crear administrador
          </button>
        </form>
      </section>
    </Layout>
  );
}
