import type { ComponentChildren } from 'preact';
import { CsrfMarker, renderingFragment, type PageContext } from './render.js';

const NAV = [
  { href: '/patients/', label: 'Pacientes' },
  { href: '/patients/follow', label: 'Seguimiento' },
  { href: '/exams/', label: 'Exámenes' },
  { href: '/dashboard/', label: 'Dashboard' },
];

/** The CSRF token's field: each request's own, filled in when a kept fragment is sent (no ctx needed there). */
export function CsrfField({ ctx }: { ctx?: PageContext }) {
  if (renderingFragment()) return <CsrfMarker />;
  if (!ctx) throw new Error('CsrfField needs the page context outside a fragment');
  return <input type="hidden" name="csrfmiddlewaretoken" value={ctx.csrfToken} />;
}

export function Messages({ ctx }: { ctx: PageContext }) {
  if (ctx.messages.length === 0) return null;
  return (
    <div class="messages">
      {ctx.messages.map((m) => (
        <div
          class={`message message-${m.level}`}
          data-message-level={m.level}
          role={m.level === 'success' || m.level === 'info' ? 'status' : 'alert'}
        >
          {m.text}
        </div>
      ))}
    </div>
  );
}

export function Layout({ ctx, title, children }: { ctx: PageContext; title: string; children: ComponentChildren }) {
  const user = ctx.user;
  return (
    <html lang="es-CO">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${title} · Somno`}</title>
        <link rel="stylesheet" href="/static/app.css" />
        <script src="/static/app.js" defer></script>
      </head>
      <body data-idle-minutes={user ? String(ctx.idleMinutes) : undefined}>
        <a class="skip" href="#contenido">
          Saltar al contenido
        </a>
        <header class="topbar">
          <a class="brand" href={user ? '/dashboard/' : '/users/login/'}>
            Somno
          </a>
          {user && (
            <nav aria-label="Principal">
              <ul>
                {NAV.map((item) => (
                  <li>
                    <a href={item.href} aria-current={isCurrent(ctx.path, item.href) ? 'page' : undefined}>
                      {item.label}
                    </a>
                  </li>
                ))}
                {user.isAdmin && (
                  <li>
                    <a href="/users/" aria-current={ctx.path === '/users/' ? 'page' : undefined}>
                      Usuarios
                    </a>
                  </li>
                )}
              </ul>
            </nav>
          )}
          {user && (
            <div class="userbox">
              <a href="/users/password/" class="username" title="Cambiar contraseña">
                {user.username}
              </a>
              <form method="post" action="/users/logout/">
                <CsrfField ctx={ctx} />
                <button type="submit" class="link-button">
                  Cerrar sesión
                </button>
              </form>
            </div>
          )}
        </header>
        <div id="idle-warning" class="message message-warning" role="alert" hidden>
          Su sesión se cerrará pronto por inactividad. Recargue la página o continúe trabajando para mantenerla.
        </div>
        <main id="contenido">
          <Messages ctx={ctx} />
          {children}
        </main>
      </body>
    </html>
  );
}

function isCurrent(path: string, href: string): boolean {
  if (href === '/patients/') return path === '/patients/' || /^\/patients\/(\d+\/|create\/)/.test(path);
  return path.startsWith(href.replace(/\/$/, ''));
}
