// The agenda's pages (issue 28): the day, booking, a visit and its changes, the worklists. Routes parse, call one
// action and render or redirect; the day and week (decision 0200) and the worklists (decision 0210) are kept pages.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { addDays } from '../shared/dates.js';
import { parsePageNumber } from '../shared/paging.js';
import { actionContext } from '../web/action-context.js';
import { today } from '../web/deps.js';
import { sendErrorPage } from '../web/errors.js';
import type { Choice, FieldErrors, FormValues } from '../web/fields.js';
import { parseForm, parseId, queryValue } from '../web/form.js';
import { FragmentSlot, pageContext, redirectWith, sendPage } from '../web/render.js';
import { attendVisit, bookVisit, cancelVisit, createFeed, feedOwner, giveConsent, markNoShow, markReminded, rescheduleVisit, revokeFeed, withdrawConsent, type AgendaResult } from './agenda.actions.js';
import { renderFeed } from './agenda.ical.js';
import { ConsentPage, FeedPage, RemindersPage } from './views/contact.views.js';
import { findAjustes, findBookingPatient, listCycleExamsOn, listTipos } from './agenda.repository.js';
import { findVisitDetail, listBookedVisits, listCycleVisits, listVisitHistoryWithUsers } from './agenda.day.repository.js';
import type { WorklistKind } from './agenda.worklists.repository.js';
import { agendaCountsPage, agendaDayOfPage, agendaDayPage, agendaDaysCountPage, controlsInput, daysOf, countsInput, profesionalChoices, profesionalesPage, recursoChoices, recursosPage, worklistControlsPage, worklistInput, worklistPage } from './agenda.pages.js';
import { sendKeptPage } from '../platform/pages/cached-page.js';
import { listConsents, listFeedsOf, listFeedVisits, listRemindersOn, liveChannelsOf } from './agenda.contact.repository.js';
import { reminderText, startMinute, weekStart, whatsappLink } from './agenda.rules.js';
import { attendForm, bookingForm, cancelForm, consentForm, parseAgendaQuery, remindForm, rescheduleForm, withdrawConsentForm } from './agenda.schema.js';
import { BookingPage, VisitPage } from './views/agenda.views.js';
import { agendaDayFill } from './views/agenda.day.views.js';
import { WORKLISTS } from './views/agenda.worklists.views.js';

export interface AgendaRoutesOptions {
  /** The patient record's choice lists (the composition passes them: the agenda does not import the patients). */
  programas: readonly Choice[];
  entidades: readonly Choice[];
}

/** The worklists' kept parts, read together (the route's order of use). */
const WORKLIST_PARTS = [profesionalesPage, agendaCountsPage, worklistPage, worklistControlsPage] as const;
/** The whole clinic's days and their count, read together. */
const CLINIC_DAY_PARTS = [agendaDaysCountPage, agendaDayPage] as const;
/** The catalogues a professional's or a resource's day shows, read together. */
const CATALOGUE_PARTS = [profesionalesPage, recursosPage] as const;

const EXAM_LABEL: Record<string, string> = { MONITOREO: 'Monitoreo', PSICOLOGIA: 'Psicología', OTRO: 'Otro examen' };

export async function agendaRoutes(app: FastifyInstance, options: AgendaRoutesOptions): Promise<void> {
  const { db, config } = app.deps;

  app.get('/', async (request, reply) => {
    const day = today(app.deps);
    const query = parseAgendaQuery(request.query, day);
    if (query.profesional === null && query.recurso === null) {
      // The whole clinic's days. Their first page, the one staff open, is one kept part that counts its days when
      // rendered; a later page is paged by the count kept apart (decision 0340), both versions read in one statement.
      if (query.pagina <= 1) return sendKeptPage(request, reply, (await app.pages.get(agendaDayPage, { query, today: day }))!);
      const parts = await app.pages.together(CLINIC_DAY_PARTS);
      const total = (await parts.get(agendaDaysCountPage, daysOf(query)))!.meta;
      return sendKeptPage(request, reply, (await parts.get(agendaDayPage, { query, today: day, total }))!);
    }
    // Someone's or something's days, rendered each time; whose they are and the filter form come from the
    // professionals and the resources kept apart, their versions read in one statement (decision 0310).
    const catalogues = await app.pages.together(CATALOGUE_PARTS);
    const profesionales = (await catalogues.get(profesionalesPage, null))!.meta;
    const recursos = (await catalogues.get(recursosPage, null))!.meta;
    const page = (await app.pages.get(agendaDayOfPage, { query, today: day }))!;
    return sendKeptPage(request, reply, page, { fill: agendaDayFill(query, profesionales, recursos) });
  });

  const sendBooking = async (request: FastifyRequest, reply: FastifyReply, patientId: number, values: FormValues, errors: FieldErrors) => {
    const patient = await findBookingPatient(db, patientId);
    if (!patient) return sendErrorPage(request, reply, 404);
    const tipos = await listTipos(db);
    const cycleVisits = patient.cycle ? await listCycleVisits(db, patient.cycle.id) : [];
    return sendPage(
      reply,
      <BookingPage
        ctx={pageContext(request, reply)}
        patient={patient}
        cycleVisits={cycleVisits}
        tipos={tipos.map((t) => ({ value: t.codigo, label: `${t.nombre} (${t.duracion_min} min)` }))}
        profesionales={await profesionalChoices(db)}
        recursos={await recursoChoices(db)}
        values={values}
        errors={errors}
      />,
      Object.keys(errors).length > 0 ? 422 : 200,
    );
  };

  app.get('/citas/nueva/', async (request, reply) => {
    const patientId = parseId(queryValue(request.query, 'patient_id'));
    if (patientId === null) return sendErrorPage(request, reply, 404);
    const tipo = queryValue(request.query, 'tipo') ?? '';
    const values: FormValues = { fecha: today(app.deps), hora: '', duracion_min: '', tipo, recurso: '', profesional: request.user ? String(request.user.id) : '' };
    if (tipo) {
      const t = (await listTipos(db)).find((x) => x.codigo === tipo);
      if (t) values.duracion_min = String(t.duracion_min);
    }
    return sendBooking(request, reply, patientId, values, {});
  });

  app.post('/citas/nueva/', async (request, reply) => {
    const form = parseForm(request.body, bookingForm);
    const result = await bookVisit(actionContext(request), form);
    if (result.ok) return redirectWith(reply, `/agenda/?fecha=${(form.ok && form.data.fecha) || ''}`, 'success', result.message);
    const patientId = parseId((form.values.patient_id ?? '').trim());
    if (patientId === null) return sendErrorPage(request, reply, 404);
    return sendBooking(request, reply, patientId, form.values, result.errors);
  });

  const sendVisit = async (request: FastifyRequest, reply: FastifyReply, citaId: number, values: FormValues, errors: FieldErrors) => {
    const visit = await findVisitDetail(db, citaId);
    if (!visit) return sendErrorPage(request, reply, 404);
    const exams = visit.fecha ? await listCycleExamsOn(db, visit.ingreso_id, visit.fecha) : [];
    const slotValues: FormValues = {
      fecha: visit.fecha ?? '',
      hora: visit.hora ?? '',
      duracion_min: visit.duracion_min === null ? '' : String(visit.duracion_min),
      profesional: visit.profesional_id === null ? '' : String(visit.profesional_id),
      recurso: visit.recurso_id === null ? '' : String(visit.recurso_id),
      // The day's record of the visit's kind is offered first (registering an exam, then marking the visit attended).
      exam_record_id: exams.length === 1 ? String(exams[0]!.id) : '',
    };
    return sendPage(
      reply,
      <VisitPage
        ctx={pageContext(request, reply)}
        visit={visit}
        history={await listVisitHistoryWithUsers(db, citaId)}
        exams={exams.map((e) => ({ value: String(e.id), label: `n.º ${e.id} · ${EXAM_LABEL[e.kind] ?? e.kind} ${e.tipo ?? e.tipo_sesion ?? e.nombre_examen ?? ''}`.trim() }))}
        profesionales={await profesionalChoices(db)}
        recursos={await recursoChoices(db)}
        values={{ ...slotValues, ...values }}
        errors={errors}
        timeZone={config.timeZone}
      />,
      Object.keys(errors).length > 0 ? 422 : 200,
    );
  };

  app.get('/citas/:id/', async (request, reply) => {
    const id = parseId((request.params as { id: string }).id);
    if (id === null) return sendErrorPage(request, reply, 404);
    return sendVisit(request, reply, id, {}, {});
  });

  const answer = async (request: FastifyRequest, reply: FastifyReply, id: number, values: FormValues, result: AgendaResult) => {
    if (result.ok) return redirectWith(reply, `/agenda/citas/${id}/`, 'success', result.message);
    if (result.notFound) return sendErrorPage(request, reply, 404);
    return sendVisit(request, reply, id, values, result.errors);
  };
  const idOf = (request: FastifyRequest) => parseId((request.params as { id: string }).id);

  app.post('/citas/:id/reprogramar/', async (request, reply) => {
    const id = idOf(request);
    if (id === null) return sendErrorPage(request, reply, 404);
    const form = parseForm(request.body, rescheduleForm);
    return answer(request, reply, id, form.values, await rescheduleVisit(actionContext(request), id, form));
  });
  app.post('/citas/:id/cancelar/', async (request, reply) => {
    const id = idOf(request);
    if (id === null) return sendErrorPage(request, reply, 404);
    const form = parseForm(request.body, cancelForm);
    return answer(request, reply, id, form.values, await cancelVisit(actionContext(request), id, form));
  });
  app.post('/citas/:id/atendida/', async (request, reply) => {
    const id = idOf(request);
    if (id === null) return sendErrorPage(request, reply, 404);
    const form = parseForm(request.body, attendForm);
    return answer(request, reply, id, form.values, await attendVisit(actionContext(request), id, form));
  });
  app.post('/citas/:id/no-asistio/', async (request, reply) => {
    const id = idOf(request);
    if (id === null) return sendErrorPage(request, reply, 404);
    return answer(request, reply, id, {}, await markNoShow(actionContext(request), id));
  });

  app.get('/pendientes/', async (request, reply) => {
    const day = today(app.deps);
    const lista = queryValue(request.query, 'lista');
    const kind: WorklistKind = WORKLISTS.some((w) => w.kind === lista) ? (lista as WorklistKind) : 'semana';
    const pick = (name: string, choices: readonly Choice[]) => {
      const v = queryValue(request.query, name) ?? '';
      return choices.some((c) => c.value === v) ? v : null;
    };
    // Four kept parts, their versions read in one statement (decisions 0220, 0265): the professionals the filter is
    // checked against, the counts per filters and day, the list's rows per list, filters and day, and the links and
    // form in the rows' hole per list, filters and counts. A kept list renders nothing: it is stitched.
    const parts = await app.pages.together(WORKLIST_PARTS);
    const profesionales = (await parts.get(profesionalesPage, null))!.meta;
    const filters = {
      programa: pick('programa', options.programas),
      entidad: pick('entidad', options.entidades),
      profesional: (() => {
        const v = pick('profesional', profesionales);
        return v === null ? null : Number(v);
      })(),
    };
    // A filter asked for but not among its choices (a professional since deactivated, a link typed by hand): the list
    // is shown without it, and the controls say so.
    const dropped = (['programa', 'entidad', 'profesional'] as const).filter((name) => filters[name] === null && (queryValue(request.query, name) ?? '') !== '');
    const counts = (await parts.get(agendaCountsPage, countsInput(filters, day)))!.meta;
    const requested = parsePageNumber(queryValue(request.query, 'pagina'));
    const page = (await parts.get(worklistPage, worklistInput(kind, filters, day, requested, counts[kind])))!;
    const controls = (await parts.get(worklistControlsPage, controlsInput(kind, filters, counts, options, dropped)))!;
    return sendKeptPage(request, reply, page, { fill: [<FragmentSlot fragment={controls.fragments[0]!} />] });
  });

  // ---------------------------------------------------------------------------------------------------------
  // Contact consent, reminders, calendar feeds

  const sendConsent = async (request: FastifyRequest, reply: FastifyReply, patientId: number, values: FormValues, errors: FieldErrors) => {
    const patient = await findBookingPatient(db, patientId);
    if (!patient) return sendErrorPage(request, reply, 404);
    const day = today(app.deps);
    return sendPage(
      reply,
      <ConsentPage ctx={pageContext(request, reply)} patient={patient} consents={await listConsents(db, patientId)} values={{ otorgado_el: day, retirado_el: day, ...values }} errors={errors} />,
      Object.keys(errors).length > 0 ? 422 : 200,
    );
  };
  app.get('/consentimiento/:id/', async (request, reply) => {
    const id = idOf(request);
    if (id === null) return sendErrorPage(request, reply, 404);
    return sendConsent(request, reply, id, {}, {});
  });
  app.post('/consentimiento/:id/', async (request, reply) => {
    const id = idOf(request);
    if (id === null) return sendErrorPage(request, reply, 404);
    const form = parseForm(request.body, consentForm);
    const result = await giveConsent(actionContext(request), id, form);
    if (result.ok) return redirectWith(reply, `/agenda/consentimiento/${id}/`, 'success', result.message);
    if (result.notFound) return sendErrorPage(request, reply, 404);
    return sendConsent(request, reply, id, form.values, result.errors);
  });
  app.post('/consentimiento/retirar/:id/', async (request, reply) => {
    const id = idOf(request);
    if (id === null) return sendErrorPage(request, reply, 404);
    const form = parseForm(request.body, withdrawConsentForm);
    const result = await withdrawConsent(actionContext(request), id, form);
    if (result.ok) return redirectWith(reply, `/agenda/consentimiento/${result.pacienteId}/`, 'success', result.message);
    if (result.pacienteId === undefined) return sendErrorPage(request, reply, 404);
    return sendConsent(request, reply, result.pacienteId, form.values, result.errors);
  });

  app.get('/recordatorios/', async (request, reply) => {
    const q = parseAgendaQuery(request.query, addDays(today(app.deps), 1));
    const rows = await listRemindersOn(db, q.fecha);
    const channels = await liveChannelsOf(db, [...new Set(rows.map((r) => r.paciente_id))]);
    const { lugar } = await findAjustes(db);
    return sendPage(
      reply,
      <RemindersPage
        ctx={pageContext(request, reply)}
        fecha={q.fecha}
        timeZone={config.timeZone}
        rows={rows.map((r) => {
          const canales = [...(channels.get(r.paciente_id) ?? [])];
          const text = reminderText({ nombre: r.nombre, tipo: r.tipo_nombre, fecha: r.fecha ?? q.fecha, hora: r.hora ?? '', lugar, indicaciones: r.indicaciones });
          // Never a message for a channel the patient did not allow (Ley 1581 de 2012).
          return { ...r, canales, text, whatsapp: canales.includes('WHATSAPP') ? whatsappLink(r.celular, text) : null };
        })}
      />,
    );
  });
  app.post('/citas/:id/recordado/', async (request, reply) => {
    const id = idOf(request);
    if (id === null) return sendErrorPage(request, reply, 404);
    const form = parseForm(request.body, remindForm);
    const result = await markReminded(actionContext(request), id, form);
    if (result.ok) return redirectWith(reply, '/agenda/recordatorios/', 'success', result.message);
    if (result.notFound) return sendErrorPage(request, reply, 404);
    return redirectWith(reply, '/agenda/recordatorios/', 'error', Object.values(result.errors)[0] ?? 'No se registró.');
  });

  const sendFeeds = async (request: FastifyRequest, reply: FastifyReply, newUrl: string | null) =>
    sendPage(reply, <FeedPage ctx={pageContext(request, reply)} feeds={request.user ? await listFeedsOf(db, request.user.id) : []} newUrl={newUrl} timeZone={config.timeZone} />);
  app.get('/calendario/', async (request, reply) => sendFeeds(request, reply, null));
  app.post('/calendario/', async (request, reply) => {
    const result = await createFeed(actionContext(request));
    if (!result.ok) return sendErrorPage(request, reply, 404);
    const host = request.headers.host ?? 'localhost';
    return sendFeeds(request, reply, `${request.protocol}://${host}/agenda/ical/${result.token}.ics`);
  });
  app.post('/calendario/:id/revocar/', async (request, reply) => {
    const id = idOf(request);
    if (id === null) return sendErrorPage(request, reply, 404);
    const result = await revokeFeed(actionContext(request), id);
    if (!result.ok) return sendErrorPage(request, reply, 404);
    return redirectWith(reply, '/agenda/calendario/', 'success', result.message);
  });

  // The feed itself: public, answered to its secret address alone; unknown or revoked: 404.
  app.get('/ical/:token', async (request, reply) => {
    const m = /^([A-Za-z0-9_-]{16,64})\.ics$/.exec((request.params as { token: string }).token);
    const owner = m ? await feedOwner(actionContext(request), m[1]!) : null;
    if (owner === null) return reply.code(404).type('text/plain; charset=utf-8').send('No encontrado');
    const day = today(app.deps);
    const desde = startMinute(weekStart(day), '00:00');
    const visits = await listFeedVisits(db, owner, desde, desde + 35 * 24 * 60);
    const { lugar } = await findAjustes(db);
    const body = await renderFeed({ visits, timeZone: config.timeZone, lugar, host: request.headers.host ?? 'somno' });
    return reply.header('cache-control', 'private, no-store').type('text/calendar; charset=utf-8').send(body);
  });
}
