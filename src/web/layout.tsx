import type { ComponentChildren } from 'preact';
import { keyOf } from '../platform/pages/page-cache.js';
import { ContentMarker, CsrfMarker, FragmentSlot, renderFrame, type Fragment, type PageContext } from './render.js';

const NAV = [
  { href: '/patients/', label: 'Pacientes' },
  { href: '/patients/follow', label: 'Seguimiento' },
  { href: '/exams/', label: 'Exámenes' },
  { href: '/agenda/', label: 'Agenda' },
  { href: '/dashboard/', label: 'Dashboard' },
];

/** The CSRF token's field: sendPage puts the request's own token there (so kept fragments can hold forms). */
export function CsrfField() {
  return <CsrfMarker />;
}

export function Messages({ ctx }: { ctx: PageContext }) {
  if (ctx.messages.length === 0 && !ctx.restoredForm) return null;
  return (
    <div class="messages">
      {ctx.restoredForm && (
        // What app.js puts back in the form posted to this action (attributes are escaped; no inline script).
        <div
          id="restored-form"
          hidden
          data-action={ctx.restoredForm.action}
          data-fields={JSON.stringify(ctx.restoredForm.fields)}
          data-errors={ctx.restoredForm.errors && Object.keys(ctx.restoredForm.errors).length > 0 ? JSON.stringify(ctx.restoredForm.errors) : undefined}
        />
      )}
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

/**
 * The site's layout around a page's content. Without messages it depends only on the shell's props (which menu
 * entries are current, the user, the idle time): its parts around the title and the content are rendered once
 * per value of those props, keyed by the very object rendered, and kept as fragments (decision 0016); the title
 * is the one part written per page.
 */
export function Layout({ ctx, title, children }: { ctx: PageContext; title: string; children: ComponentChildren }) {
  const shell = keptShell(ctx);
  if (shell === null) return <LayoutMarkup shell={shellProps(ctx)} messages={<Messages ctx={ctx} />} title={fullTitle(title)}>{children}</LayoutMarkup>;
  return (
    <>
      <FragmentSlot fragment={shell[0]} />
      {fullTitle(title)}
      <FragmentSlot fragment={shell[1]} />
      {children}
      <FragmentSlot fragment={shell[2]} />
    </>
  );
}

/** The text of the page's title element. */
export const fullTitle = (title: string): string => `${title} · Somno`;

/**
 * The layout around the title and around the content, as three kept fragments (what comes before the title, between
 * the title and the content, after the content), or null when the page shows messages (the layout is then rendered
 * with them). A kept page is put together from these and its own fragments without rendering (sendKeptPage).
 */
export function keptShell(ctx: PageContext): KeptShell | null {
  if (ctx.messages.length > 0 || ctx.restoredForm) return null;
  const props = shellProps(ctx);
  const key = keyOf(props);
  let shell = shells.get(key);
  if (shell === undefined) {
    shell = renderFrame(<LayoutMarkup shell={props} messages={null} title={<ContentMarker />}>{<ContentMarker />}</LayoutMarkup>, 2) as unknown as KeptShell;
    if (shells.size >= SHELLS_MAX) shells.clear();
    shells.set(key, shell);
  }
  return shell;
}

/** Layouts kept: one per user and current menu entry (about 2 KB each). */
const SHELLS_MAX = 1000;
const shells = new Map<string, KeptShell>();

type KeptShell = readonly [beforeTitle: Fragment, beforeContent: Fragment, afterContent: Fragment];

/** Everything the layout shows besides the title, the messages and the content: its key too. */
interface ShellProps {
  /** for each NAV entry, then the users' entry: whether it is the current one */
  current: boolean[];
  user: { username: string; isAdmin: boolean } | null;
  idleMinutes: number;
}

const shellProps = (ctx: PageContext): ShellProps => ({
  current: [...NAV.map((item) => isCurrent(ctx.path, item.href)), ctx.path === '/users/'],
  user: ctx.user ? { username: ctx.user.username, isAdmin: ctx.user.isAdmin } : null,
  idleMinutes: ctx.idleMinutes,
});

function LayoutMarkup({ shell, messages, title, children }: { shell: ShellProps; messages: ComponentChildren; title: ComponentChildren; children: ComponentChildren }) {
  const user = shell.user;
  return (
    <html lang="es-CO">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{title}</title>
        <link rel="stylesheet" href="/static/app.css" />
        <script src="/static/app.js" defer></script>
      </head>
      <body data-idle-minutes={user ? String(shell.idleMinutes) : undefined}>
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
                {NAV.map((item, i) => (
                  <li>
                    <a href={item.href} aria-current={shell.current[i] ? 'page' : undefined}>
                      {item.label}
                    </a>
                  </li>
                ))}
                {user.isAdmin && (
                  <li>
                    <a href="/users/" aria-current={shell.current[NAV.length] ? 'page' : undefined}>
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
                <CsrfField />
                <button type="submit" class="link-button">
                  Cerrar sesión
                </button>
              </form>
            </div>
          )}
        </header>
        {user && (
          // Shown by app.js shortly before the session ends, fixed at the bottom with the page's own space
          // reserved below its content, so it covers no control (issue 29, point 2; decision 0111).
          <div id="idle-warning" class="message message-warning idle-warning" role="alert" hidden>
            <p data-idle-text>Su sesión se cerrará pronto por inactividad. Lo que escribe en un formulario cuenta como actividad.</p>
            <button type="button" class="button" data-idle-renew>
              Seguir trabajando
            </button>
          </div>
        )}
        <main id="contenido">
          {messages}
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
