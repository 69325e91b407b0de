// The agenda's administration as use cases (issue 28): publishing a plan edition, the clinic's hours and place, the
// resources. Each owns its transaction, its audit entry and its refusals; the routes let only administrators in.
import { recordAudit } from '../audit/audit.repository.js';
import { isUniqueViolation } from '../db/errors.js';
import { todayOf, type ActionContext } from '../platform/writes/action-context.js';
import { inTransaction } from '../platform/writes/transaction.js';
import { formatDateEs } from '../shared/dates.js';
import type { FieldErrors } from '../web/fields.js';
import type { ParsedForm } from '../web/form.js';
import type { SimpleResult } from './agenda.actions.js';
import { findAnyRecurso, findLatestEdition, findRecursoByName, insertRecurso, listTipoCodes, updateAjustes, updateRecurso } from './agenda.admin.repository.js';
import { ADMIN_MSG, claseLabel, editionDateProblem, isProgramaPlan, lineFields, repeatText } from './agenda.admin.rules.js';
import { editionLines, type AjustesInput, type EditRecursoInput, type NewRecursoInput } from './agenda.admin.schema.js';
import { findAjustes, insertPlanEdition } from './agenda.repository.js';

const failed = (errors: FieldErrors): SimpleResult => ({ ok: false, errors });

/**
 * Publishes a new edition of a program's visit plan (decision 0101): in force from a date not in the past and after
 * the program's latest edition, its lines of known kinds. Cycles already started keep the edition in force at their
 * start: nothing planned is rewritten. Audited as `agenda.plan_edition`.
 */
export async function publishPlanEdition(ctx: ActionContext, parsed: ParsedForm<Record<string, unknown> & { programa: string; vigente_desde: string }>): Promise<SimpleResult> {
  if (!parsed.ok) return failed(parsed.errors);
  const { programa, vigente_desde } = parsed.data;
  if (!isProgramaPlan(programa)) return failed({ programa: ADMIN_MSG.programa });
  const lines = editionLines(parsed.data);
  const taken = (desde: string) => failed({ vigente_desde: ADMIN_MSG.notAfterLatest(desde) });
  try {
    return await inTransaction(ctx.db, async (trx): Promise<SimpleResult> => {
      const errors: FieldErrors = {};
      const latest = await findLatestEdition(trx, programa);
      const dateProblem = editionDateProblem(vigente_desde, todayOf(ctx), latest?.vigente_desde ?? null);
      if (dateProblem) errors.vigente_desde = dateProblem;
      const known = await listTipoCodes(trx);
      for (const l of lines) if (!known.has(l.tipo)) errors[lineFields(l.n).tipo] = ADMIN_MSG.tipo;
      if (Object.keys(errors).length > 0) return failed(errors);
      const at = ctx.clock.now();
      const plan = lines.map(({ tipo, dia, repeticiones, intervalo_dias }) => ({ tipo, dia, repeticiones, intervalo_dias }));
      const id = await insertPlanEdition(trx, { programa, vigenteDesde: vigente_desde, lines: plan, now: at.toISOString(), userId: ctx.actor?.id ?? null });
      await recordAudit(trx, {
        at,
        actor: ctx.actor,
        action: 'agenda.plan_edition',
        entityType: 'agenda',
        entityId: id,
        changes: {
          programa: [null, programa],
          vigente_desde: [null, vigente_desde],
          visitas: [null, plan.map((l) => `${l.tipo} día ${l.dia} (${repeatText(l).toLowerCase()})`).join('; ')],
        },
        requestId: ctx.requestId,
      });
      return { ok: true, message: `Nueva edición del plan de ${programa} publicada: rige para los ciclos que empiecen desde el ${formatDateEs(vigente_desde)}.` };
    });
  } catch (err) {
    // Another administrator published an edition from that date meanwhile (the unique key holds it).
    if (isUniqueViolation(err)) return taken(vigente_desde);
    throw err;
  }
}

/** Saves the clinic's hours (what a booking is checked against) and its place (what reminders say). Audited. */
export async function saveAgendaSettings(ctx: ActionContext, parsed: ParsedForm<AjustesInput>): Promise<SimpleResult> {
  if (!parsed.ok) return failed(parsed.errors);
  const next = parsed.data;
  return inTransaction(ctx.db, async (trx): Promise<SimpleResult> => {
    const before = await findAjustes(trx);
    const changes = Object.fromEntries(
      (['hora_apertura', 'hora_cierre', 'lugar'] as const).filter((k) => before[k] !== next[k]).map((k) => [k, [before[k], next[k]]]),
    );
    if (Object.keys(changes).length === 0) return { ok: true, message: 'No había cambios que guardar.' };
    await updateAjustes(trx, next);
    await recordAudit(trx, { at: ctx.clock.now(), actor: ctx.actor, action: 'agenda.settings', entityType: 'agenda', entityId: 1, changes, requestId: ctx.requestId });
    return { ok: true, message: `Horario y lugar de la clínica guardados: de ${next.hora_apertura} a ${next.hora_cierre}.` };
  });
}

/** Adds a resource (a room, a polygraph, a CPAP device), offered for bookings from now on. Audited. */
export async function addRecurso(ctx: ActionContext, parsed: ParsedForm<NewRecursoInput>): Promise<SimpleResult> {
  if (!parsed.ok) return failed(parsed.errors);
  const { nombre, clase } = parsed.data;
  try {
    return await inTransaction(ctx.db, async (trx): Promise<SimpleResult> => {
      if (await findRecursoByName(trx, nombre)) return failed({ nombre: ADMIN_MSG.nombreTaken });
      const id = await insertRecurso(trx, { nombre, clase });
      await recordAudit(trx, {
        at: ctx.clock.now(),
        actor: ctx.actor,
        action: 'agenda.resource_create',
        entityType: 'agenda',
        entityId: id,
        changes: { nombre: [null, nombre], clase: [null, claseLabel(clase)] },
        requestId: ctx.requestId,
      });
      return { ok: true, message: `Recurso «${nombre}» agregado.` };
    });
  } catch (err) {
    if (isUniqueViolation(err)) return failed({ nombre: ADMIN_MSG.nombreTaken });
    throw err;
  }
}

/**
 * Renames a resource or (de)activates it. A deactivated one is not offered for new bookings; the visits that held
 * it keep it. Audited.
 */
export async function editRecurso(ctx: ActionContext, id: number, parsed: ParsedForm<EditRecursoInput>): Promise<SimpleResult> {
  if (!parsed.ok) return failed(parsed.errors);
  const { nombre, activo } = parsed.data;
  try {
    return await inTransaction(ctx.db, async (trx): Promise<SimpleResult> => {
      const before = await findAnyRecurso(trx, id);
      if (!before) return { ok: false, errors: { _form: 'Recurso desconocido.' }, notFound: true };
      const other = await findRecursoByName(trx, nombre);
      if (other && other.id !== id) return failed({ nombre: ADMIN_MSG.nombreTaken });
      const changes: Record<string, [unknown, unknown]> = {};
      if (before.nombre !== nombre) changes.nombre = [before.nombre, nombre];
      if ((before.activo === 1) !== activo) changes.activo = [before.activo === 1 ? 'Sí' : 'No', activo ? 'Sí' : 'No'];
      if (Object.keys(changes).length === 0) return { ok: true, message: 'No había cambios que guardar.' };
      await updateRecurso(trx, id, { nombre, activo: activo ? 1 : 0 });
      await recordAudit(trx, { at: ctx.clock.now(), actor: ctx.actor, action: 'agenda.resource_update', entityType: 'agenda', entityId: id, changes, requestId: ctx.requestId });
      const state = changes.activo ? (activo ? ' (activo de nuevo)' : ' (desactivado: no se ofrece para citas nuevas)') : '';
      return { ok: true, message: `Recurso «${nombre}» guardado${state}.` };
    });
  } catch (err) {
    if (isUniqueViolation(err)) return failed({ nombre: ADMIN_MSG.nombreTaken });
    throw err;
  }
}
