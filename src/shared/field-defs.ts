// What a stored field is, for the people who read it: its Spanish label (the one its form shows) and how its
// stored value reads. Forms take their labels from here, and the audit trail formats stored changes with the
// same definitions, so a history reads as the form was filled in.

export interface FieldChoice {
  readonly value: string | number;
  readonly label: string;
}

export type FieldKind =
  /** free text, shown as stored */
  | 'text'
  /** 'YYYY-MM-DD', shown dd/mm/aaaa */
  | 'date'
  /** ISO instant, shown dd/mm/aaaa HH:mm in the clinic's zone */
  | 'instant'
  /** integer hundredths, shown as typed (32,4) with the unit */
  | 'decimal'
  /** integer hundredths of a peso, shown as money ($ 259.783) */
  | 'money'
  /** whole number */
  | 'integer'
  /** one of `choices`, shown by its label */
  | 'choice'
  /** yes or no */
  | 'boolean'
  /** the id of another record (a user, a cycle), shown as n.º */
  | 'reference';

export interface FieldDef {
  /** the field's name in Spanish, without its unit */
  readonly label: string;
  readonly kind: FieldKind;
  /** unit of a decimal value (kg, %, eventos/h) */
  readonly unit?: string;
  /** the unit is not written in the form's label (it reads in the label's words already) */
  readonly unitInLabel?: false;
  readonly choices?: readonly FieldChoice[];
}

export type FieldDefs = Readonly<Record<string, FieldDef>>;

/** The label a form shows: the name, and the unit in parentheses when it has one ('Peso (kg)'). */
export function formLabel(def: FieldDef): string {
  return def.unit && def.unitInLabel !== false ? `${def.label} (${def.unit})` : def.label;
}
