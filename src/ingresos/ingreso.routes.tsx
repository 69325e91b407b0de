import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { recordAudit } from '../audit/audit.repository.js';
import { diffFields } from '../audit/audit.rules.js';
import { today } from '../web/deps.js';
import { sendErrorPage } from '../web/errors.js';
import type { FieldErrors, FormValues } from '../web/fields.js';
import { listUrl, parseForm, parseId, queryValue } from '../web/form.js';
import { pageContext, redirectWith, sendPage } from '../web/render.js';
import {
  applyStatusChange,
  CYCLE_ALREADY_OPEN,
  findCycleDateBounds,
  findCycleState,
  findIngresoForChange,
  openIngreso,
} from './ingreso.repository.js';
import { decideNewCycle, decideStatusChange, newCycleForm, RETURN_FIELDS, statusForm } from './ingreso.schema.js';
import {
  isEstado,
  MSG,
  newCycleMessage,
  terminationErrorsByField,
  statusChangeMessage,
  type Estado,
  type NewCycleDecision,
  type StatusChangeDecision,
} from './ingreso.rules.js';
import { FOLLOW_PATH } from './views/follow.links.js';
import { TerminatePage, type TerminateCycle } from './views/terminate.page.js';
import { inTransaction } from '../platform/writes/transaction.js';
import { dateRuleRefused } from '../db/errors.js';
import { DATE_RULE_FALLBACK } from './cycle-dates.rules.js';
import { isDomainError } from '../shared/domain-error.js';

const FIELD_LABELS: Record<string, string> = {
  fecha_terminacion: 'Fecha de terminación',
  motivo_estado: 'Motivo',
  fecha_inicio: 'Fecha de inicio',
};

/** How many times a status change is re-decided when a concurrent change got there first. */
const MAX_ATTEMPTS = 3;
const RACED = 'El ingreso cambió mientras se procesaba la solicitud. Revise su estado y vuelva a intentarlo.';

/** Problems of a malformed submission (repeated or unknown fields…), as sentences; the return fields only lose their value. */
function formProblems(errors: FieldErrors): string[] {
  return Object.entries(errors)
    .filter(([name]) => !(RETURN_FIELDS as readonly string[]).includes(name))
    .map(([name, text]) => (name === '_form' ? text : `${FIELD_LABELS[name] ?? name}: ${text}`));
}

/** /patients/follow, keeping the search and page the form came from (when they were sent and well-formed). */
function backTo(values: FormValues, errors: FieldErrors): string {
  const page = errors.page ? null : parseId((values.page ?? '').trim());
  return listUrl(FOLLOW_PATH, {
    query_search: errors.query_search ? '' : (values.query_search ?? '').trim(),
    page: page !== null && page > 1 ? page : null,
  });
}

const actorOf = (request: FastifyRequest) => (request.user ? { id: request.user.id, username: request.user.username } : null);

/** Routes under /patients: the Ingreso lifecycle endpoints (decisions §6); they answer with the follow page. */
export async function ingresoRoutes(app: FastifyInstance): Promise<void> {
  const { db, clock } = app.deps;

  const sendTerminatePage = async (
    request: FastifyRequest,
    reply: FastifyReply,
    found: Omit<TerminateCycle, 'earliestEnd'>,
    values: FormValues,
    errors: FieldErrors,
  ) => {
    // The hint names the earliest date the cycle can end on (decision 0063), as the check does.
    const { lastChange, lastExam } = await findCycleDateBounds(db, found.id);
    const earliestEnd = [found.fecha_inicio, lastChange ?? '', lastExam ?? ''].reduce((a, b) => (b > a ? b : a));
    const cycle: TerminateCycle = { ...found, earliestEnd };
    const query = (values.query_search ?? '').trim();
    const page = parseId((values.page ?? '').trim()) ?? 1;
    const back = { url: backTo(values, {}), query, page };
    return sendPage(
      reply,
      <TerminatePage ctx={pageContext(request, reply)} cycle={cycle} values={values} errors={errors} back={back} today={today(app.deps)} />,
    );
  };

  // The question before terminating, on a page of our own (no window.confirm; it works without JavaScript).
  app.get('/ingreso/terminar/:entryId/', async (request, reply) => {
    const ingresoId = parseId((request.params as { entryId: string }).entryId);
    if (ingresoId === null) return sendErrorPage(request, reply, 404);
    const found = await findIngresoForChange(db, ingresoId);
    if (!found) return sendErrorPage(request, reply, 404);
    const values = { query_search: queryValue(request.query, 'query_search') ?? '', page: queryValue(request.query, 'page') ?? '' };
    if (found.estado === 'TERMINADO') return redirectWith(reply, backTo(values, {}), 'info', MSG.finished);
    return sendTerminatePage(request, reply, found, values, {});
  });

  app.post('/ingreso/estado/:entryId/:newStatus/', async (request, reply) => {
    const params = request.params as { entryId: string; newStatus: string };
    const ingresoId = parseId(params.entryId);
    const target = params.newStatus;
    // Unknown or non-numeric id, or a status word not in the table: 404 page.
    if (ingresoId === null || !isEstado(target)) return sendErrorPage(request, reply, 404);
    // Read as posted here; checked against the cycle as it is in the transaction (decideStatusChange).
    const form = parseForm(request.body, statusForm);
    const { values } = form;
    const errors = form.ok ? {} : form.errors;
    const back = backTo(values, errors);

    const found = await findIngresoForChange(db, ingresoId);
    if (!found) return sendErrorPage(request, reply, 404);
    const problems = formProblems(errors);
    if (problems.length > 0) {
      const msg = statusChangeMessage({ kind: 'invalid', to: target, errors: problems }, found.nombre);
      return redirectWith(reply, back, msg.level, msg.text);
    }

    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      const work = inTransaction(db, async (trx) => {
        // Re-read inside the transaction: the decision is made on the state the update is conditional on.
        const ingreso = await findIngresoForChange(trx, ingresoId);
        if (!ingreso) return null;
        const todayDate = today(app.deps);
        const decision: StatusChangeDecision = decideStatusChange({
          current: ingreso.estado,
          target,
          fecha_terminacion: values.fecha_terminacion,
          motivo_estado: values.motivo_estado,
          fechaInicio: ingreso.fecha_inicio,
          today: todayDate,
          bounds: ingreso.estado === 'TERMINADO' ? undefined : await findCycleDateBounds(trx, ingresoId),
        });
        if (decision.kind !== 'apply') return { decision, nombre: ingreso.nombre };
        const at = clock.now();
        const applied = await applyStatusChange(trx, {
          ingresoId,
          from: decision.from,
          to: decision.to,
          fechaFin: decision.fecha_fin,
          motivo: decision.motivo,
          fecha: decision.fecha_fin ?? todayDate,
          userId: request.user?.id ?? null,
          now: at.toISOString(),
        });
        if (!applied) return 'raced' as const;
        await recordAudit(trx, {
          at,
          actor: actorOf(request),
          action: 'ingreso.status',
          entityType: 'ingreso',
          entityId: ingresoId,
          patientId: ingreso.paciente_id,
          changes: diffFields(
            { estado: decision.from, fecha_fin: ingreso.fecha_fin, motivo: ingreso.motivo },
            { estado: decision.to, fecha_fin: decision.fecha_fin, motivo: decision.motivo },
          ),
          requestId: String(request.id),
        });
        return { decision, nombre: ingreso.nombre };
      });
      // The database refused a date the decision had accepted (an exam or a change got in between): decided again
      // on what is stored now, which names the date; the rule alone if it keeps happening.
      const outcome = await work.catch((err: unknown) => {
        const rule = dateRuleRefused(err);
        if (rule === null) throw err;
        if (attempt < MAX_ATTEMPTS) return 'raced' as const;
        const decision: StatusChangeDecision = { kind: 'invalid', to: target, errors: [DATE_RULE_FALLBACK[rule]] };
        return { decision, nombre: found.nombre };
      });
      if (outcome === null) return sendErrorPage(request, reply, 404);
      if (outcome === 'raced') continue;
      // Sent from the page that asks first: the errors go beside its fields, on that page.
      if (outcome.decision.kind === 'invalid' && target === 'TERMINADO' && values.confirmacion === '1') {
        const fieldErrors = terminationErrorsByField(outcome.decision.errors);
        return sendTerminatePage(request, reply, found, values, fieldErrors);
      }
      const msg = statusChangeMessage(outcome.decision, outcome.nombre);
      return redirectWith(reply, back, msg.level, msg.text);
    }
    return redirectWith(reply, back, 'error', RACED);
  });

  app.post('/ingreso/nuevo/:patientId/', async (request, reply) => {
    const pacienteId = parseId((request.params as { patientId: string }).patientId);
    if (pacienteId === null) return sendErrorPage(request, reply, 404);
    const form = parseForm(request.body, newCycleForm);
    const { values } = form;
    const errors = form.ok ? {} : form.errors;
    const back = backTo(values, errors);

    const state = await findCycleState(db, pacienteId);
    if (!state) return sendErrorPage(request, reply, 404);
    const problems = formProblems(errors);
    if (problems.length > 0) {
      return redirectWith(reply, back, 'error', `No se pudo iniciar el ciclo. ${problems.join(' ')}`);
    }

    let decision: NewCycleDecision;
    try {
      // The transaction has ended (rolled back) before the catch runs, so on PostgreSQL the refused insert
      // never leaves an aborted transaction behind.
      decision = await inTransaction(db, async (trx) => {
        const current = (await findCycleState(trx, pacienteId)) ?? state;
        const d = decideNewCycle({
          fecha_inicio: values.fecha_inicio,
          openEstados: current.openEstados,
          latestFechaFin: current.latestFechaFin,
          today: today(app.deps),
          fechaNacimiento: current.fechaNacimiento,
        });
        if (d.kind !== 'ok') return d;
        const at = clock.now();
        const ingresoId = await openIngreso(trx, {
          pacienteId,
          fechaInicio: d.fecha_inicio,
          userId: request.user?.id ?? null,
          now: at.toISOString(),
        });
        await recordAudit(trx, {
          at,
          actor: actorOf(request),
          action: 'ingreso.open',
          entityType: 'ingreso',
          entityId: ingresoId,
          patientId: pacienteId,
          changes: { estado: [null, 'ACTIVO' satisfies Estado], fecha_inicio: [null, d.fecha_inicio] },
          requestId: String(request.id),
        });
        return d;
      });
    } catch (err) {
      // The birth date moved under the new start (another request, between the check and the insert).
      const rule = dateRuleRefused(err);
      if (rule !== null) decision = { kind: 'impossible_start', reason: DATE_RULE_FALLBACK[rule] };
      else if (isDomainError(err, CYCLE_ALREADY_OPEN)) decision = { kind: 'pending_process' };
      else throw err;
    }
    const msg = newCycleMessage(decision, state.nombre);
    return redirectWith(reply, back, msg.level, msg.text);
  });
}
