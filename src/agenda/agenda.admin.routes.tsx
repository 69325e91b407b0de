import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { actionContext } from '../web/action-context.js';
import { today } from '../web/deps.js';
import type { FieldErrors, FormValues } from '../web/fields.js';
import { parseForm, parseId, queryValue } from '../web/form.js';
import { requireAdmin } from '../web/guard.js';
import { sendErrorPage } from '../web/errors.js';
import { pageContext, redirectWith, sendPage } from '../web/render.js';
import type { SimpleResult } from './agenda.actions.js';
import { addRecurso, editRecurso, publishPlanEdition, saveAgendaSettings } from './agenda.admin.actions.js';
import { listAllRecursos, listEditionLines, listEditions } from './agenda.admin.repository.js';
import { newEditionValues } from './agenda.admin.rules.js';
import { ajustesForm, editionForm, editRecursoForm, newRecursoForm } from './agenda.admin.schema.js';
import { findAjustes, listTipos } from './agenda.repository.js';
import { AgendaSettingsPage, PlansPage, type AgendaSettingsPageProps } from './views/agenda.admin.views.js';

/**
 * /users/agenda/ (administrators only, 403 otherwise): the clinic's hours and place, its resources, and the visit
 * plans in editions (issue 28).
 */
export async function agendaAdminRoutes(app: FastifyInstance): Promise<void> {
  const { db, config } = app.deps;
  const admin = { preHandler: requireAdmin };

  const sendSettings = async (request: FastifyRequest, reply: FastifyReply, posted: AgendaSettingsPageProps['posted']) => {
    const [ajustes, recursos] = await Promise.all([findAjustes(db), listAllRecursos(db)]);
    const settings = { hora_apertura: ajustes.hora_apertura, hora_cierre: ajustes.hora_cierre, lugar: ajustes.lugar };
    return sendPage(reply, <AgendaSettingsPage ctx={pageContext(request, reply)} settings={settings} recursos={recursos} posted={posted} />, posted ? 422 : 200);
  };
  const answer = (request: FastifyRequest, reply: FastifyReply, result: SimpleResult, form: AgendaSettingsPageProps['posted'] & object, anchor: string) => {
    if (result.ok) return redirectWith(reply, `/users/agenda/#${anchor}`, 'success', result.message);
    if (result.notFound) return sendErrorPage(request, reply, 404);
    return sendSettings(request, reply, { ...form, errors: result.errors });
  };

  app.get('/', admin, async (request, reply) => sendSettings(request, reply, null));
  app.post('/', admin, async (request, reply) => {
    const form = parseForm(request.body, ajustesForm);
    return answer(request, reply, await saveAgendaSettings(actionContext(request), form), { form: 'ajustes', values: form.values, errors: {} }, 'horario');
  });
  app.post('/recursos/', admin, async (request, reply) => {
    const form = parseForm(request.body, newRecursoForm);
    return answer(request, reply, await addRecurso(actionContext(request), form), { form: 'recurso_nuevo', values: form.values, errors: {} }, 'recursos');
  });
  app.post('/recursos/:id/', admin, async (request, reply) => {
    const id = parseId((request.params as { id: string }).id);
    if (id === null) return sendErrorPage(request, reply, 404);
    const form = parseForm(request.body, editRecursoForm);
    return answer(request, reply, await editRecurso(actionContext(request), id, form), { form: id, values: form.values, errors: {} }, 'recursos');
  });

  // The plans: the editions of each program, and a new one (prefilled from the program's latest edition).
  const sendPlans = async (request: FastifyRequest, reply: FastifyReply, values: FormValues, errors: FieldErrors) => {
    const editions = await listEditions(db);
    const [lines, tipos] = await Promise.all([listEditionLines(db, editions.map((e) => e.id)), listTipos(db)]);
    const day = today(app.deps);
    // After a refused post the form shows what was posted; otherwise it starts from the program's latest edition.
    const shown = Object.keys(errors).length === 0 ? newEditionValues(queryValue(request.query, 'programa') ?? '', day, editions, lines) : values;
    return sendPage(
      reply,
      <PlansPage
        ctx={pageContext(request, reply)}
        editions={editions}
        lines={lines}
        today={day}
        timeZone={config.timeZone}
        tipos={tipos.map((t) => ({ value: t.codigo, label: t.examen_tipo ? `${t.nombre} (la registra: ${t.examen_tipo})` : t.nombre }))}
        values={shown}
        errors={errors}
      />,
      Object.keys(errors).length > 0 ? 422 : 200,
    );
  };
  app.get('/planes/', admin, async (request, reply) => sendPlans(request, reply, {}, {}));
  app.post('/planes/', admin, async (request, reply) => {
    const form = parseForm(request.body, editionForm);
    const result = await publishPlanEdition(actionContext(request), form);
    if (result.ok) return redirectWith(reply, '/users/agenda/planes/', 'success', result.message);
    return sendPlans(request, reply, form.values, result.errors);
  });
}
