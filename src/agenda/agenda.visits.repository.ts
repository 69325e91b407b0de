// What other features show of a patient's agenda (issue 28): the day's booked visits that registering an exam offers.
// It reads only that patient's rows (the clinical view is kept per patient).
import type { Executor } from '../db/database.js';

/** The patient's visits booked on a day, with the exam kind and tipo that record each, by time. */
export const listBookedVisitsOn = (db: Executor, pacienteId: number, fecha: string) =>
  db
    .selectFrom('citas as c')
    .innerJoin('agenda_tipos as t', 't.codigo', 'c.tipo')
    .select(['c.id', 'c.hora', 'c.tipo', 't.nombre as tipo_nombre', 't.examen', 't.examen_tipo'])
    .where('c.paciente_id', '=', pacienteId)
    .where('c.fecha', '=', fecha)
    .where('c.estado', '=', 'AGENDADA')
    .orderBy('c.hora')
    .orderBy('c.id')
    .limit(50)
    .execute();
export type BookedVisitOfDay = Awaited<ReturnType<typeof listBookedVisitsOn>>[number];
