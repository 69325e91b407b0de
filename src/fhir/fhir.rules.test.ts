import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { newPatientRow } from '../../test/fixtures/patient.fixtures.js';
import type { PatientRow } from '../patients/patient.table.js';
import type { ExamRecordRow } from '../exams/exam.table.js';
import { bmiObservation, episodeOfCareResource, episodeStatus, examObservations, patientResource } from './fhir.rules.js';

const patient = (overrides: Partial<PatientRow> = {}): PatientRow =>
  ({ ...newPatientRow(), id: 7, activo_desde: null, valor_capita: 25978300, ...overrides }) as PatientRow;

const exam = (overrides: Partial<ExamRecordRow>): ExamRecordRow => ({
  id: 3, ingreso_id: 11, kind: 'MONITOREO', fecha: '2026-02-01', hora: null, registrado_por: 1, created_at: '2026-02-01T10:00:00.000Z', observaciones: null,
  tipo: 'POLISOMNOGRAFIA', iah: null, saturacion_minima: null, horas_uso_promedio: null, porcentaje_noches_4h: null, presion_cmh2o: null, fuga_lpm: null,
  tipo_sesion: null, numero_sesion: null, isi: null, epworth: null, nombre_examen: null, resultado: null,
  anulado_at: null, anulado_por: null, motivo_anulacion: null, ...overrides,
});

describe('FHIR mappings', () => {
  test('estado → EpisodeOfCare.status', () => {
    assert.equal(episodeStatus('ACTIVO'), 'active');
    assert.equal(episodeStatus('SUSPENDIDO'), 'onhold');
    assert.equal(episodeStatus('TERMINADO'), 'finished');
    assert.throws(() => episodeStatus('OTRO'));
  });

  test('statusHistory: the earlier states, each until the next change took effect', () => {
    const e = episodeOfCareResource(
      { id: 11, paciente_id: 7, fecha_inicio: '2026-01-01', fecha_fin: null, estado: 'ACTIVO', motivo: null, created_at: '', updated_at: '' },
      'PROGRAMA INSOMNIO',
      [
        { hacia: 'ACTIVO', fecha: '2026-01-01', at: '2026-01-01T12:00:00.000Z' },
        { hacia: 'SUSPENDIDO', fecha: null, at: '2026-02-10T12:00:00.000Z' },
        { hacia: 'ACTIVO', fecha: '2026-03-01', at: '2026-03-01T12:00:00.000Z' },
      ],
    );
    assert.equal(e.status, 'active');
    assert.deepEqual(e.statusHistory, [
      { status: 'active', period: { start: '2026-01-01', end: '2026-02-10' } },
      { status: 'onhold', period: { start: '2026-02-10', end: '2026-03-01' } },
    ]);
    assert.deepEqual(e.period, { start: '2026-01-01' });
    assert.equal(e.type?.[0]?.coding?.[0]?.code, 'PROGRAMA INSOMNIO');
  });

  test('Patient: gender, phones, DIVIPOLA codes of departamento and ciudad', () => {
    const p = patientResource(patient({ genero: 'O', departamento: 'ANTIOQUIA', ciudad: 'MEDELLÍN' }));
    assert.equal(p.gender, 'other');
    assert.deepEqual(p.telecom?.map((t) => t.use), ['home', 'mobile']);
    assert.deepEqual(p.address?.[0]?.extension?.map((x) => x.valueCoding?.code), ['05', '05001']);
  });

  test('a voided record gives no Observation; values are decimals from hundredths', () => {
    assert.deepEqual(examObservations(exam({ iah: 1550, anulado_at: '2026-02-02T00:00:00.000Z' }), 7), []);
    const obs = examObservations(exam({ iah: 1550, saturacion_minima: 8800 }), 7);
    assert.deepEqual(obs.map((o) => [o.code.coding?.[0]?.code, o.valueQuantity?.value, o.valueQuantity?.code]), [
      ['69990-0', 15.5, '/h'],
      ['saturacion-minima', 88, '%'],
    ]);
    assert.equal(obs[0]!.extension?.[0]?.valueReference?.reference, 'EpisodeOfCare/11');
  });

  test('BMI only when peso and altura are known', () => {
    assert.equal(bmiObservation(patient({ peso: null }), null), null);
    const bmi = bmiObservation(patient({ peso: 9000, altura: 180 }), null)!;
    assert.equal(bmi.valueQuantity?.value, 27.8);
    assert.equal(bmi.extension, undefined);
  });
});
