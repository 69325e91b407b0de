import { formatDateEs } from '../../shared/dates.js';
import { FormError, SelectField, TextField, type FieldErrors, type FormValues } from '../../web/fields.js';
import { CsrfField, Layout } from '../../web/layout.js';
import type { PageContext } from '../../web/render.js';
import { BLOQUES, CAUSAS_MOTIVO, FINALIDADES, GRUPOS_SERVICIOS, MODALIDADES, RIPS_VERSION, VIAS_INGRESO } from '../rips.rules.js';
import { KNOWN_SERVICIOS, servicioLabel } from '../rips.services.js';
import type { RipsCatalogueRow, RipsEntidadRow } from '../rips.table.js';

/** Which form a posted error belongs to. */
export type SettingsForm = 'settings' | 'entidad' | 'catalogo';

export interface SettingsPageProps {
  ctx: PageContext;
  settings: FormValues;
  entidades: RipsEntidadRow[];
  catalogue: RipsCatalogueRow[];
  posted: { form: SettingsForm; values: FormValues; errors: FieldErrors; entidad?: string } | null;
}

/** /users/rips/ (administrators): the provider's RIPS settings, the insurers and the versioned service catalogue. */
export function RipsSettingsPage({ ctx, settings, entidades, catalogue, posted }: SettingsPageProps) {
  const s = posted?.form === 'settings' ? posted.values : settings;
  const sErr = posted?.form === 'settings' ? posted.errors : {};
  const cVals = posted?.form === 'catalogo' ? posted.values : {};
  const cErr = posted?.form === 'catalogo' ? posted.errors : {};
  return (
    <Layout ctx={ctx} title="Configuración del RIPS">
      <h1>Configuración del RIPS</h1>
      <p class="muted">
        Datos del prestador y códigos con que Somno arma el RIPS (Resolución 2275 de 2023, versión {RIPS_VERSION}). Cada cambio queda en la
        auditoría. <a href="/dashboard/rips/">Ir al RIPS del mes</a>
      </p>
      <section class="card" id="prestador">
        <h2>Prestador y valores por defecto</h2>
        <form method="post" action="/users/rips/" novalidate>
          <CsrfField />
          <FormError errors={sErr} />
          <div class="grid-2">
            <TextField name="nit" label="NIT del prestador (numDocumentoIdObligado)" values={s} errors={sErr} hint="Solo dígitos, sin dígito de verificación." maxLength={20} />
            <TextField name="codigo_prestador" label="Código REPS de la sede (codPrestador)" values={s} errors={sErr} hint="12 dígitos: 10 del prestador y 2 de la sede." maxLength={14} />
            <SelectField name="modalidad_grupo_servicio" label="Modalidad (modalidadGrupoServicioTecSal)" choices={MODALIDADES} values={s} errors={sErr} required />
            <SelectField name="grupo_servicios" label="Grupo de servicios (grupoServicios)" choices={GRUPOS_SERVICIOS} values={s} errors={sErr} required />
            <SelectField name="finalidad_tecnologia_salud" label="Finalidad (finalidadTecnologiaSalud)" choices={FINALIDADES} values={s} errors={sErr} required />
            <SelectField name="causa_motivo_atencion" label="Causa de la atención (causaMotivoAtencion)" choices={CAUSAS_MOTIVO} values={s} errors={sErr} required />
            <SelectField name="via_ingreso_servicio_salud" label="Vía de ingreso de los procedimientos" choices={VIAS_INGRESO} values={s} errors={sErr} required />
            <TextField name="diagnostico_aos" label="Diagnóstico principal, programa AOS (CIE-10)" values={s} errors={sErr} required maxLength={6} />
            <TextField name="diagnostico_insomnio" label="Diagnóstico principal, programa insomnio (CIE-10)" values={s} errors={sErr} required maxLength={6} hint="G47.0 (insomnio orgánico) o F51.0 (insomnio no orgánico)." />
          </div>
          <button type="submit" class="button primary">
            Guardar configuración
          </button>
        </form>
      </section>
      <section class="card" id="entidades">
        <h2>Entidades de salud</h2>
        {entidades.map((e) => {
          const mine = posted?.form === 'entidad' && posted.entidad === e.entidad_salud;
          const v = mine ? posted.values : { entidad_salud: e.entidad_salud, nombre: e.nombre, codigo: e.codigo };
          const err = mine ? posted.errors : {};
          return (
            <form method="post" action="/users/rips/entidad/" novalidate data-entidad={e.entidad_salud}>
              <CsrfField />
              <FormError errors={err} />
              <input type="hidden" name="entidad_salud" value={e.entidad_salud} />
              <h3>{e.entidad_salud}</h3>
              <div class="grid-2">
                <TextField name="nombre" label="Nombre" values={v} errors={err} required maxLength={120} idPrefix={`${e.entidad_salud}_`} />
                <TextField name="codigo" label="Código de la entidad" values={v} errors={err} maxLength={20} idPrefix={`${e.entidad_salud}_`} />
              </div>
              <button type="submit" class="button">
                Guardar {e.entidad_salud}
              </button>
            </form>
          );
        })}
      </section>
      <section class="card" id="catalogo">
        <h2>Catálogo de servicios</h2>
        <p class="muted">
          Cada servicio se reporta con la vigencia más reciente que empieza en o antes de su fecha. Una nueva edición de la CUPS se agrega como una
          vigencia nueva: los meses ya reportados no cambian.
        </p>
        <div class="table-wrap" tabIndex={0} role="region" aria-label="Catálogo de servicios">
          <table class="table" data-table="rips-catalogue">
            <thead>
              <tr>
                <th scope="col">Servicio</th>
                <th scope="col">Vigente desde</th>
                <th scope="col">Bloque</th>
                <th scope="col">CUPS</th>
                <th scope="col">Servicio REPS</th>
              </tr>
            </thead>
            <tbody>
              {catalogue.map((r) => (
                <tr data-servicio={r.servicio}>
                  <td data-label="Servicio">{servicioLabel(r.servicio)}</td>
                  <td data-label="Vigente desde">{formatDateEs(r.vigente_desde)}</td>
                  <td data-label="Bloque">{r.bloque}</td>
                  <td data-label="CUPS">{r.cups}</td>
                  <td data-label="Servicio REPS">{r.cod_servicio}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        <h3>Agregar una vigencia</h3>
        <form method="post" action="/users/rips/catalogo/" novalidate>
          <CsrfField />
          <FormError errors={cErr} />
          <div class="grid-2">
            <SelectField name="servicio" label="Servicio" choices={KNOWN_SERVICIOS} values={cVals} errors={cErr} required />
            <TextField name="vigente_desde" label="Vigente desde" type="date" values={cVals} errors={cErr} required />
            <SelectField name="bloque" label="Bloque del RIPS" choices={BLOQUES} values={cVals} errors={cErr} required />
            <TextField name="cups" label="Código CUPS" values={cVals} errors={cErr} required maxLength={6} />
            <TextField name="cod_servicio" label="Código del servicio REPS" values={cVals} errors={cErr} required maxLength={4} inputMode="numeric" />
          </div>
          <button type="submit" class="button primary">
            Agregar vigencia
          </button>
        </form>
      </section>
    </Layout>
  );
}
