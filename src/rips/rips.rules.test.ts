import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  addMonths,
  buildUsuario,
  catalogueEntryOn,
  catalogueIndex,
  checkRipsFile,
  monthBounds,
  patientProblems,
  ripsOpening,
  servicioOf,
  settingsProblems,
  type CatalogueEntry,
  type RipsPatient,
  type RipsService,
  type RipsSettings,
} from './rips.rules.js';
import { parseRipsQuery } from './rips.schema.js';

const SETTINGS: RipsSettings = {
  nit: '900123456', codigo_prestador: '680010012301', modalidad_grupo_servicio: '01', grupo_servicios: '01', finalidad_tecnologia_salud: '15',
  causa_motivo_atencion: '38', via_ingreso_servicio_salud: '02', diagnostico_aos: 'G473', diagnostico_insomnio: 'G470',
};
const PATIENT: RipsPatient = { id: 1, tipo_documento: 'CC', documento: '123', tipo_usuario: '01', fecha_nacimiento: '1970-01-01', genero: 'O', zona: 'RURAL', cod_municipio: '68001', programa: 'PROGRAMA AOS' };
const svc = (over: Partial<RipsService>): RipsService => ({
  id: 1, paciente_id: 1, kind: 'MONITOREO', tipo: 'POLISOMNOGRAFIA', tipo_sesion: null, fecha: '2026-10-03', hora: null, registrado_por: 2, prof_tipo_documento: 'CC', prof_documento: '99', ...over,
});
const entry = (over: Partial<CatalogueEntry>): CatalogueEntry => ({ servicio: 'MONITOREO:POLISOMNOGRAFIA', vigente_desde: '2000-01-01', bloque: 'procedimientos', cups: '891704', cod_servicio: 331, ...over });

describe('RIPS rules', () => {
  test('months: bounds and the month after', () => {
    assert.deepEqual(monthBounds('2024-02'), { start: '2024-02-01', end: '2024-02-29' });
    assert.equal(addMonths('2026-12', 1), '2027-01');
    assert.equal(addMonths('2026-01', -1), '2025-12');
  });

  test('the catalogue row in force on a date is the latest edition not after it', () => {
    const rows = [entry({}), entry({ vigente_desde: '2026-10-05', cups: '891901' }), entry({ servicio: 'OTRO', cups: '891806' })];
    assert.equal(catalogueEntryOn(rows, 'MONITOREO:POLISOMNOGRAFIA', '2026-10-04')?.cups, '891704');
    assert.equal(catalogueEntryOn(rows, 'MONITOREO:POLISOMNOGRAFIA', '2026-10-05')?.cups, '891901');
    assert.equal(catalogueEntryOn(rows, 'PSICOLOGIA:TCC_I', '2026-10-05'), null);
    // Editions read in any order: a month's index answers the same.
    const entryOn = catalogueIndex([rows[1]!, rows[2]!, rows[0]!]);
    assert.equal(entryOn('MONITOREO:POLISOMNOGRAFIA', '2026-10-04')?.cups, '891704');
    assert.equal(entryOn('MONITOREO:POLISOMNOGRAFIA', '2026-11-01')?.cups, '891901');
    assert.equal(entryOn('OTRO', '1999-12-31'), null);
    assert.equal(servicioOf({ kind: 'PSICOLOGIA', tipo: null, tipo_sesion: 'TCC_I' }), 'PSICOLOGIA:TCC_I');
  });

  test('settings and patient problems', () => {
    assert.equal(settingsProblems(SETTINGS).length, 0);
    assert.equal(settingsProblems({ ...SETTINGS, codigo_prestador: '6800100123' }).length, 1, 'the 10-digit provider code alone is refused');
    assert.deepEqual(patientProblems({ ...PATIENT, tipo_usuario: '', cod_municipio: null }).map((p) => p.kind), ['tipo_usuario', 'municipio']);
  });

  test('a usuario: default time 08:00, O sent as I, rural 01, blocks numbered from 1, capitation values', () => {
    const u = buildUsuario(PATIENT, [{ svc: svc({}), entry: entry({}) }, { svc: svc({ id: 2, fecha: '2026-10-04', hora: '21:30' }), entry: entry({}) }], 3, SETTINGS) as any;
    assert.equal(u.codSexo, 'I');
    assert.equal(u.codZonaTerritorialResidencia, '01');
    assert.equal(u.consecutivo, 3);
    assert.deepEqual(u.servicios.procedimientos.map((p: any) => [p.fechaInicioAtencion, p.consecutivo, p.vrServicio, p.conceptoRecaudo]), [
      ['2026-10-03 08:00', 1, 0, '05'],
      ['2026-10-04 21:30', 2, 0, '05'],
    ]);
    assert.equal(u.servicios.consultas, undefined, 'empty blocks are left out');
  });

  test('RS carries no invoice; the opening is the header without its closing brace', () => {
    assert.equal(ripsOpening(SETTINGS, 'RS', null), '{"numDocumentoIdObligado":"900123456","numFactura":null,"tipoNota":"RS","numNota":null,"usuarios":[');
    assert.equal(ripsOpening(SETTINGS, 'CapitaPeriodo', 'FEV1'), '{"numDocumentoIdObligado":"900123456","numFactura":"FEV1","tipoNota":null,"numNota":null,"usuarios":[');
  });

  test('checkRipsFile finds what a schema cannot: order, 12 digits, date format and period, professional', () => {
    const u = buildUsuario(PATIENT, [{ svc: svc({}), entry: entry({}) }], 2, { ...SETTINGS, codigo_prestador: '6800100123' }) as any;
    u.servicios.procedimientos[0].fechaInicioAtencion = '2026-11-01 08:00';
    u.servicios.procedimientos[0].numDocumentoIdentificacion = '';
    const problems = checkRipsFile({ usuarios: [u] }, { start: '2026-10-01', end: '2026-10-31' });
    assert.equal(problems.length, 4, problems.join('\n'));
  });

  test('the query: future month, unknown insurer, invoice characters, RS with an invoice', () => {
    const q = (s: string) => parseRipsQuery(Object.fromEntries(new URLSearchParams(s)), '2026-11-22', true).errors;
    assert.deepEqual(q('mes=2026-10&entidad_salud=ENTITY_A&operacion=CapitaPeriodo&factura=FEV1'), {});
    assert.deepEqual(Object.keys(q('mes=2026-12&entidad_salud=ENTITY_A&operacion=CapitaPeriodo&factura=FEV1')), ['mes']);
    assert.deepEqual(Object.keys(q('mes=2026-10&entidad_salud=X&operacion=CapitaPeriodo&factura=FEV1')), ['entidad_salud']);
    assert.deepEqual(Object.keys(q('mes=2026-10&entidad_salud=ENTITY_A&operacion=CapitaPeriodo&factura=FEV 1')), ['factura']);
    assert.deepEqual(Object.keys(q('mes=2026-10&entidad_salud=ENTITY_A&operacion=RS&factura=FEV1')), ['factura']);
    assert.deepEqual(q('mes=2026-10&entidad_salud=ENTITY_A&operacion=RS&factura='), {});
  });
});
