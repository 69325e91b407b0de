import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { actionContext } from '../web/action-context.js';
import { parseForm } from '../web/form.js';
import { requireAdmin } from '../web/guard.js';
import { pageContext, redirectWith, sendPage } from '../web/render.js';
import { addCatalogueEdition, saveRipsEntidad, saveRipsSettings } from './rips.actions.js';
import { findRipsSettings, listRipsCatalogue, listRipsEntidades } from './rips.repository.js';
import { catalogueEditionSchema, ripsEntidadSchema, ripsSettingsSchema } from './rips.schema.js';
import { RipsSettingsPage, type SettingsPageProps } from './views/settings.page.js';

/** /users/rips/ (administrators only, 403 otherwise): the RIPS settings, insurers and service catalogue. */
export async function ripsSettingsRoutes(app: FastifyInstance): Promise<void> {
  const { db } = app.deps;
  const admin = { preHandler: requireAdmin };

  const render = async (request: FastifyRequest, reply: FastifyReply, posted: SettingsPageProps['posted'], status = 200) => {
    const [settings, entidades, catalogue] = await Promise.all([findRipsSettings(db), listRipsEntidades(db), listRipsCatalogue(db)]);
    const values = Object.fromEntries(Object.entries(settings).map(([k, v]) => [k, v === null ? '' : String(v)]));
    return sendPage(reply, <RipsSettingsPage ctx={pageContext(request, reply)} settings={values} entidades={entidades} catalogue={catalogue} posted={posted} />, status);
  };

  app.get('/', admin, async (request, reply) => render(request, reply, null));

  app.post('/', admin, async (request, reply) => {
    const form = parseForm(request.body, ripsSettingsSchema);
    if (!form.ok) return render(request, reply, { form: 'settings', values: form.values, errors: form.errors });
    const message = await saveRipsSettings(actionContext(request), form.data);
    return redirectWith(reply, '/users/rips/', message.level, message.text);
  });

  app.post('/entidad/', admin, async (request, reply) => {
    const form = parseForm(request.body, ripsEntidadSchema);
    if (!form.ok) return render(request, reply, { form: 'entidad', values: form.values, errors: form.errors, entidad: form.values.entidad_salud });
    const message = await saveRipsEntidad(actionContext(request), form.data);
    return redirectWith(reply, '/users/rips/#entidades', message.level, message.text);
  });

  app.post('/catalogo/', admin, async (request, reply) => {
    const form = parseForm(request.body, catalogueEditionSchema);
    if (!form.ok) return render(request, reply, { form: 'catalogo', values: form.values, errors: form.errors });
    const result = await addCatalogueEdition(actionContext(request), form.data);
    if (!result.ok) return render(request, reply, { form: 'catalogo', values: form.values, errors: result.errors });
    return redirectWith(reply, '/users/rips/#catalogo', result.message.level, result.message.text);
  });
}
