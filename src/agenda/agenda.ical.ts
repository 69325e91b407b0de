// A professional's visits as an iCalendar feed (RFC 5545, issue 28; decision 0105). It carries the patient's
// initials and the visit's kind, never a documento, a name or a diagnosis: a phone's calendar is not a clinical
// record. ical-generator is loaded on the first feed asked for (a rare request; see docs/conventions.md).
import { startOfDayUtc } from '../shared/dates.js';
import { initials, minutesOfDay } from './agenda.rules.js';
import type * as IcalGenerator from 'ical-generator';

export interface FeedVisit {
  id: number;
  fecha: string | null;
  hora: string | null;
  duracion_min: number | null;
  estado: string;
  updated_at: string;
  nombre: string;
  apellido: string;
  tipo_nombre: string;
  recurso: string | null;
}

let loaded: Promise<typeof IcalGenerator> | null = null;
const loadIcal = () => (loaded ??= import('ical-generator'));

export async function renderFeed(input: { visits: readonly FeedVisit[]; timeZone: string; lugar: string; host: string }): Promise<string> {
  const { default: ical } = await loadIcal();
  const cal = ical({ name: 'Somno · Agenda', prodId: { company: 'Somno', product: 'agenda', language: 'ES' }, ttl: 15 * 60 });
  for (const v of input.visits) {
    if (v.fecha === null || v.hora === null || v.duracion_min === null) continue;
    const start = new Date(Date.parse(startOfDayUtc(v.fecha, input.timeZone)) + minutesOfDay(v.hora)! * 60000);
    cal.createEvent({
      id: `cita-${v.id}@${input.host}`,
      start,
      end: new Date(start.getTime() + v.duracion_min * 60000),
      stamp: new Date(v.updated_at),
      summary: `${v.tipo_nombre} · ${initials(v.nombre, v.apellido)}`,
      location: v.recurso ? `${input.lugar} · ${v.recurso}` : input.lugar,
    });
  }
  return cal.toString();
}
