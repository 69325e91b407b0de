import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError } from '../shared/domain-error.js';
import { isDatabaseUnavailable } from '../db/connection.js';
import { isTransientConflict } from '../db/errors.js';
import { Layout } from './layout.js';
import { pageContext, sendPage } from './render.js';
import { FormEncodingError } from './form.js';
import { clearSessionCookie } from './session-cookie.js';
import { mappedStack } from '../platform/launch/mapped-stack.js';

const TITLES: Record<number, { title: string; text: string }> = {
  400: { title: 'Solicitud no válida', text: 'La solicitud no se pudo entender. Revise los datos y vuelva a intentarlo.' },
  403: {
    title: 'Acceso denegado',
    text: 'No tiene permiso para realizar esta acción.',
  },
  404: { title: 'Página no encontrada', text: 'La página o el registro que busca no existe.' },
  405: { title: 'Método no permitido', text: 'Esta dirección no acepta ese tipo de solicitud.' },
  409: {
    title: 'Los datos cambiaron',
    text: 'Los datos cambiaron mientras se enviaba la solicitud, o una regla del programa no permite el cambio. No se guardó nada: vuelva a la página, revise y envíe de nuevo.',
  },
  413: { title: 'Solicitud demasiado grande', text: 'Los datos enviados superan el tamaño máximo permitido (1 MB).' },
  415: { title: 'Formato no admitido', text: 'Envíe el formulario desde la aplicación.' },
  429: {
    title: 'Demasiados intentos',
    text: 'Se hicieron demasiadas solicitudes en poco tiempo. Espere unos minutos y vuelva a intentarlo.',
  },
  500: { title: 'Error interno', text: 'Ocurrió un error inesperado. El equipo técnico puede rastrearlo con el código de abajo.' },
  503: { title: 'Servicio no disponible', text: 'El servicio no está disponible en este momento. Intente de nuevo en unos segundos.' },
};

const FORM_ENCODING_TEXT =
  'El formulario llegó con caracteres que no son texto válido (UTF-8). No se guardó nada: vuelva a la página, revise lo escrito y envíelo de nuevo.';
const MALFORMED_MULTIPART = /Unexpected end of (form|multipart data)|Malformed part header|Boundary not found|Part terminated early|Multipart: /i;
const MULTIPART_TEXT = 'El archivo llegó incompleto o dañado. No se guardó nada: vuelva a la página y súbalo de nuevo.';
const CSRF_TEXT =
  'El formulario no llevaba un token de seguridad válido (CSRF), así que no se guardó nada. ' +
  'Suele pasar cuando la página estuvo abierta mucho tiempo o se envió desde otro sitio. ' +
  'Vuelva a la página, recárguela e intente de nuevo.';

/** The 403 page of a refused CSRF check: a bad token, or a request from another site. Nothing was changed. */
export function sendCsrfRefusal(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return sendErrorPage(request, reply, 403, { text: CSRF_TEXT });
}

export function sendErrorPage(
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  opts: { text?: string; detail?: string } = {},
): FastifyReply {
  const known = TITLES[status] ?? TITLES[status >= 500 ? 500 : 400]!;
  let ctx;
  try {
    ctx = pageContext(request, reply);
  } catch {
    ctx = {
      user: request.user,
      messages: [],
      path: '/',
      idleMinutes: 30,
      requestId: String(request.id),
    };
  }
  return sendPage(
    reply,
    <Layout ctx={ctx} title={known.title}>
      <section class="error-page" data-status={String(status)}>
        <h1>{known.title}</h1>
        <p>{opts.text ?? known.text}</p>
        {status >= 500 && (
          <p>
            Código de la solicitud: <code>{String(request.id)}</code>
          </p>
        )}
        {opts.detail && <pre class="debug">{opts.detail}</pre>}
        <p>
          <a href={request.user ? '/dashboard/' : '/users/login/'}>Volver al inicio</a>
        </p>
      </section>
    </Layout>,
    status,
  );
}

/** A route pattern as a regular expression, to tell "wrong method" (405) from "no such page" (404). */
const patternOf = (url: string): RegExp =>
  new RegExp(
    '^' +
      url
        .replace(/\/+$/, '')
        .split('/')
        .map((part) => (part.startsWith(':') ? '[^/]+' : part === '*' ? '.*' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
        .join('/') +
      '/?$',
  );

export function registerErrorHandling(app: FastifyInstance): void {
  const routes: { pattern: RegExp; methods: string[] }[] = [];
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    routes.push({ pattern: patternOf(route.url), methods: methods.map(String) });
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    const allowed = routes.filter((r) => r.pattern.test(path)).flatMap((r) => r.methods);
    // A handler that found no record also lands here: that is a 404, not a wrong method.
    if (allowed.length > 0 && !allowed.includes(request.method)) {
      reply.header('Allow', [...new Set(allowed)].join(', '));
      return sendErrorPage(request, reply, 405);
    }
    return sendErrorPage(request, reply, 404);
  });

  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error.code === 'FST_CSRF_INVALID_TOKEN' || error.code === 'FST_CSRF_MISSING_SECRET') {
      return sendCsrfRefusal(request, reply);
    }
    // A multipart body (the spreadsheet upload) that ends early or breaks its own format: the request's fault.
    if (!error.statusCode && MALFORMED_MULTIPART.test(error.message)) {
      return sendErrorPage(request, reply, 400, { text: MULTIPART_TEXT });
    }
    if (error instanceof FormEncodingError) {
      return sendErrorPage(request, reply, 400, { text: FORM_ENCODING_TEXT });
    }
    if (error instanceof DomainError) {
      // Deactivated mid-request: the change was rolled back and the sessions are gone; back to the login page.
      if (error.kind === 'actor_inactive') {
        clearSessionCookie(reply);
        return reply.redirect('/users/login/', 302);
      }
      // Not handled by the route (which usually turns it into a message or a form error first).
      return sendErrorPage(request, reply, error.kind === 'not_found' ? 404 : 409);
    }
    // Still conflicting after inTransaction's retries: rolled back whole; the person may simply send it again.
    if (isDatabaseUnavailable(error) || isTransientConflict(error)) {
      const what = isTransientConflict(error) ? 'transaction conflict persisted' : 'database unavailable';
      request.log.warn({ reqId: request.id, code: (error as { code?: string }).code }, what);
      reply.header('Retry-After', '5');
      return sendErrorPage(request, reply, 503);
    }
    const status = error.statusCode && error.statusCode >= 400 && error.statusCode < 600 ? error.statusCode : 500;
    if (status >= 500) {
      request.log.error({ err: error, reqId: request.id }, 'request failed');
      const dev = request.server.deps.config.appEnv === 'development';
      return sendErrorPage(request, reply, status === 503 ? 503 : 500, dev ? { detail: error.stack ? mappedStack(error.stack) : error.message } : {});
    }
    if (status === 429) return sendErrorPage(request, reply, 429);
    return sendErrorPage(request, reply, status);
  });
}
