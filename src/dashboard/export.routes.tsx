import type { FastifyInstance, FastifyRequest } from 'fastify';
import { parseAuditQuery } from '../audit/audit.filters.js';
import { changesLine, rawChangesLine, readableChanges } from '../audit/audit.format.js';
import { actionLabel } from '../audit/audit.labels.js';
import { findAuditCursor, listAuditEntries, type AuditListRow } from '../audit/audit.repository.js';
import { recordText } from '../audit/views/audit-entry.js';
import { mesCapita } from '../ingresos/ingreso.rules.js';
import { parseListQuery } from '../patients/patient.schema.js';
import { groupBy } from '../shared/collections.js';
import { keysetBatches, type CsvValue } from '../shared/csv.js';
import { formatDateTimeEs } from '../shared/dates.js';
import { requireAdmin } from '../web/guard.js';
import { listUsersPage, type UserListRow } from '../users/user-admin.repository.js';
import { today } from '../web/deps.js';
import { EXPORT_PAGE_SIZE, sendCsvExport } from './csv-export.js';
import { findIngresosOfPatients, findPatientExportPage, type PatientExportQuery, type PatientExportRow } from './export.repository.js';

const PATIENT_COLUMNS = ['documento', 'tipo_documento', 'nombre', 'apellido', 'programa', 'entidad_salud', 'departamento', 'ciudad'] as const;
const patientCells = (r: PatientExportRow): CsvValue[] => PATIENT_COLUMNS.map((c) => r[c]);

/**
 * CSV exports of the list pages, registered at the root: each exports what its page shows (same filters, every
 * page of results), streamed, and is logged as an 'export' in the audit trail.
 */
export async function exportRoutes(app: FastifyInstance): Promise<void> {
  const { db, config } = app.deps;

  const patientPages = (request: FastifyRequest, q: PatientExportQuery, opts: { lastMonitoring?: boolean } = {}) =>
    keysetBatches<PatientExportRow>((after) => findPatientExportPage(db, q, after, EXPORT_PAGE_SIZE, opts), EXPORT_PAGE_SIZE);

  // /patients/: patients with an ACTIVO Ingreso, query_search and mes_filtro as on the page.
  app.get('/patients/export.csv', async (request, reply) => {
    const { query, mesFiltro } = parseListQuery(request.query);
    const day = today(app.deps);
    const q = { query, mesFiltro, onlyActive: true, today: day };
    async function* pages() {
      for await (const page of patientPages(request, q)) yield page.map((r) => [...patientCells(r), r.fecha_inicio, mesCapita(r.fecha_inicio, day)]);
    }
    return sendCsvExport(request, reply, {
      name: 'patients',
      fileName: `pacientes-${day}.csv`,
      filters: { query_search: query, mes_filtro: mesFiltro },
      header: [...PATIENT_COLUMNS, 'fecha_inicio', 'mes_capita'],
      pages: pages(),
    });
  });

  // /patients/follow: every matching patient, one line per Ingreso (newest first).
  app.get('/patients/follow.csv', async (request, reply) => {
    const { query } = parseListQuery(request.query);
    const day = today(app.deps);
    async function* pages() {
      for await (const page of patientPages(request, { query, mesFiltro: null, onlyActive: false, today: day })) {
        const byPatient = groupBy(await findIngresosOfPatients(db, page.map((p) => p.id)), (i) => i.paciente_id);
        yield page.flatMap((p) =>
          (byPatient.get(p.id) ?? []).map((i) => [...patientCells(p), i.id, i.estado, i.fecha_inicio, i.fecha_fin, mesCapita(i.fecha_inicio, day), i.motivo]),
        );
      }
    }
    return sendCsvExport(request, reply, {
      name: 'follow',
      fileName: `seguimiento-${day}.csv`,
      filters: { query_search: query },
      header: [...PATIENT_COLUMNS, 'ingreso_id', 'estado', 'fecha_inicio', 'fecha_fin', 'mes_capita', 'motivo'],
      pages: pages(),
    });
  });

  // /exams/: patients with an ACTIVO Ingreso, with the date of their latest monitoring record.
  app.get('/exams/export.csv', async (request, reply) => {
    const { query } = parseListQuery(request.query);
    const day = today(app.deps);
    async function* pages() {
      for await (const page of patientPages(request, { query, mesFiltro: null, onlyActive: true, today: day }, { lastMonitoring: true })) {
        yield page.map((r) => [...patientCells(r), r.fecha_inicio, mesCapita(r.fecha_inicio, day), r.ultimo_monitoreo ?? null]);
      }
    }
    return sendCsvExport(request, reply, {
      name: 'exams',
      fileName: `examenes-${day}.csv`,
      filters: { query_search: query },
      header: [...PATIENT_COLUMNS, 'fecha_inicio', 'mes_capita', 'ultimo_monitoreo'],
      pages: pages(),
    });
  });

  app.get('/users/export.csv', { preHandler: requireAdmin }, async (request, reply) => {
    const tz = config.timeZone;
    async function* pages() {
      for await (const page of keysetBatches<UserListRow>((after) => listUsersPage(db, after?.id ?? 0, EXPORT_PAGE_SIZE), EXPORT_PAGE_SIZE)) {
        yield page.map((u) => [u.username, u.is_admin === 1 ? 'Sí' : 'No', u.is_active === 1 ? 'Sí' : 'No', u.last_login_at ? formatDateTimeEs(u.last_login_at, tz) : null, formatDateTimeEs(u.created_at, tz)]);
      }
    }
    return sendCsvExport(request, reply, {
      name: 'users',
      fileName: `usuarios-${today(app.deps)}.csv`,
      filters: {},
      header: ['usuario', 'administrador', 'activo', 'ultimo_ingreso', 'creado'],
      pages: pages(),
    });
  });

  // The audit trail with the filters of /users/audit/ (bad values ignored, as on the page), newest first.
  app.get('/users/audit/export.csv', { preHandler: requireAdmin }, async (request, reply) => {
    const tz = config.timeZone;
    const parsed = parseAuditQuery(request.query, tz);
    const start = parsed.antes === null ? null : await findAuditCursor(db, parsed.antes);
    const auditCells = (e: AuditListRow): CsvValue[] => {
      const c = readableChanges(e.entity_type, e.changes, tz);
      return [formatDateTimeEs(e.at, tz), e.username, actionLabel(e.action), e.action, recordText(e), e.patient_id, changesLine(c), rawChangesLine(c), e.changes];
    };
    async function* pages() {
      const all = keysetBatches<AuditListRow>((after) => listAuditEntries(db, parsed.filters, after ?? start, EXPORT_PAGE_SIZE), EXPORT_PAGE_SIZE);
      for await (const page of all) yield page.map(auditCells);
    }
    return sendCsvExport(request, reply, {
      name: 'audit',
      fileName: `auditoria-${today(app.deps)}.csv`,
      filters: Object.fromEntries(Object.entries(parsed.values).filter(([, v]) => v !== '')),
      header: ['fecha', 'usuario', 'accion', 'accion_codigo', 'registro', 'paciente_id', 'cambios', 'cambios_almacenados', 'cambios_json'],
      pages: pages(),
    });
  });
}
