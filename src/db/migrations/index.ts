import type { Migration } from 'kysely';
import * as foundation from './20261122_0001_foundation.js';
import * as patients from './20261122_0002_patients.js';
import * as exams from './20261122_0003_exams.js';
import * as patientsIndexes from './20261122_0010_patients_indexes.js';
import * as listPerformance from './20261122_0020_list_performance.js';
import * as dashboardPerformance from './20261122_0021_dashboard_performance.js';
import * as counterLockOrder from './20261123_0022_counter_lock_order.js';
import * as examRecordsVersion from './20261123_0023_exam_records_version.js';
import * as tableVersions from './20261125_0030_table_versions.js';
import * as documentoCanonicalKey from './20261125_0040_documento_canonical_key.js';
import * as datesWithinTheirCycle from './20261125_0041_dates_within_their_cycle.js';
import * as auditChangesIndex from './20261125_0050_audit_changes_index.js';
import * as patientImport from './20261125_0060_patient_import.js';
import * as dashboardCounters from './20261125_0070_dashboard_counters.js';
import * as patientVersions from './20261125_0080_patient_versions.js';
import * as activePatientIds from './20261125_0090_active_patient_ids.js';
import * as searchDocumentoKey from './20261125_0100_search_documento_key.js';
import * as auditChangesBumpPatient from './20261125_0110_audit_changes_bump_patient.js';
import * as birthIndexCovers from './20261125_0120_birth_index_covers_the_duplicate_check.js';
import * as viewsToldApart from './20261126_0130_views_told_apart_without_a_list.js';
import * as importPlans from './20261126_0140_import_plans.js';
import * as passwordGeneration from './20261126_0150_password_generation.js';
import * as loginThrottle from './20261126_0151_login_throttle.js';
import * as dateRulesOnEveryWrite from './20261126_0160_date_rules_on_every_write.js';
import * as trailPatientTriggerOwnedBySync from './20261126_0170_trail_patient_trigger_owned_by_sync.js';
import * as ripsRecords from './20261127_0200_rips_records.js';
import * as ripsSettings from './20261127_0210_rips_settings.js';
import * as agenda from './20261127_0250_agenda.js';
import * as contactConsent from './20261127_0260_contact_consent.js';
import * as pendingForms from './20261127_0300_pending_forms.js';
import * as importSkippedRows from './20261127_0320_import_skipped_rows.js';
import * as patientTotal from './20261127_0340_patient_total.js';
import * as historyByEffectiveDate from './20261127_0350_history_by_effective_date.js';
import * as consentByPatient from './20261127_0400_consent_by_patient.js';
import * as agendaSettingsHeld from './20261127_0401_agenda_settings_held.js';
import * as agendaWorklistIndexes from './20261127_0410_agenda_worklist_indexes.js';
import * as examRecordsByIngresoAndDate from './20261127_0420_exam_records_by_ingreso_and_date.js';
import * as searchCoveringIndexes from './20261127_0440_search_covering_indexes.js';
import * as patientListBlocks from './20261127_0441_patient_list_blocks.js';
import * as agendaWorklistsCovering from './20261127_0480_agenda_worklists_covering.js';
import * as examRecordsCpapLatest from './20261127_0481_exam_records_cpap_latest.js';
import * as agendaDayCovering from './20261128_0500_agenda_day_covering.js';
import * as citasByPatientAndDay from './20261128_0530_citas_by_patient_and_day.js';
import * as agendaWorklistCandidates from './20261129_0540_agenda_worklist_candidates.js';
import * as citasPendientesCovering from './20261130_0570_citas_pendientes_covering.js';
import * as citasIndexesOfBookedVisits from './20261130_0590_citas_indexes_of_booked_visits.js';
import * as activoDesdeWrittenOnce from './20261130_0591_activo_desde_written_once.js';
import * as citasProfesionalCovering from './20261130_0600_citas_profesional_covering.js';

// Kysely runs these in name order. Add new migrations at the end with a later timestamp.
export const migrations: Record<string, Migration> = {
  '20261122_0001_foundation': foundation,
  '20261122_0002_patients': patients,
  '20261122_0003_exams': exams,
  '20261122_0010_patients_indexes': patientsIndexes,
  '20261122_0020_list_performance': listPerformance,
  '20261122_0021_dashboard_performance': dashboardPerformance,
  '20261123_0022_counter_lock_order': counterLockOrder,
  '20261123_0023_exam_records_version': examRecordsVersion,
  '20261125_0030_table_versions': tableVersions,
  '20261125_0040_documento_canonical_key': documentoCanonicalKey,
  '20261125_0041_dates_within_their_cycle': datesWithinTheirCycle,
  '20261125_0050_audit_changes_index': auditChangesIndex,
  '20261125_0060_patient_import': patientImport,
  '20261125_0070_dashboard_counters': dashboardCounters,
  '20261125_0080_patient_versions': patientVersions,
  '20261125_0090_active_patient_ids': activePatientIds,
  '20261125_0100_search_documento_key': searchDocumentoKey,
  '20261125_0110_audit_changes_bump_patient': auditChangesBumpPatient,
  '20261125_0120_birth_index_covers_the_duplicate_check': birthIndexCovers,
  '20261126_0130_views_told_apart_without_a_list': viewsToldApart,
  '20261126_0140_import_plans': importPlans,
  '20261126_0150_password_generation': passwordGeneration,
  '20261126_0151_login_throttle': loginThrottle,
  '20261126_0160_date_rules_on_every_write': dateRulesOnEveryWrite,
  '20261126_0170_trail_patient_trigger_owned_by_sync': trailPatientTriggerOwnedBySync,
  '20261127_0200_rips_records': ripsRecords,
  '20261127_0210_rips_settings': ripsSettings,
  '20261127_0250_agenda': agenda,
  '20261127_0260_contact_consent': contactConsent,
  '20261127_0300_pending_forms': pendingForms,
  '20261127_0320_import_skipped_rows': importSkippedRows,
  '20261127_0340_patient_total': patientTotal,
  '20261127_0350_history_by_effective_date': historyByEffectiveDate,
  '20261127_0400_consent_by_patient': consentByPatient,
  '20261127_0401_agenda_settings_held': agendaSettingsHeld,
  '20261127_0410_agenda_worklist_indexes': agendaWorklistIndexes,
  '20261127_0420_exam_records_by_ingreso_and_date': examRecordsByIngresoAndDate,
  '20261127_0440_search_covering_indexes': searchCoveringIndexes,
  '20261127_0441_patient_list_blocks': patientListBlocks,
  '20261127_0480_agenda_worklists_covering': agendaWorklistsCovering,
  '20261127_0481_exam_records_cpap_latest': examRecordsCpapLatest,
  '20261128_0500_agenda_day_covering': agendaDayCovering,
  '20261128_0530_citas_by_patient_and_day': citasByPatientAndDay,
  '20261129_0540_agenda_worklist_candidates': agendaWorklistCandidates,
  '20261130_0570_citas_pendientes_covering': citasPendientesCovering,
  '20261130_0590_citas_indexes_of_booked_visits': citasIndexesOfBookedVisits,
  '20261130_0591_activo_desde_written_once': activoDesdeWrittenOnce,
  '20261130_0600_citas_profesional_covering': citasProfesionalCovering,
};
