// Synthetic, realistic-looking patient data for the benchmark: Spanish (Colombian) names with accents, two
// surnames, cédulas with the prefixes of Santander's registries, DIVIPOLA departamento/ciudad pairs (mostly
// SANTANDER). Deterministic for a given seed, so two generated databases hold the same people.

import { municipiosOf } from '../src/patients/divipola.js';

/** mulberry32: a small, fast, seedable PRNG. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export type Random = () => number;

export const intBetween = (r: Random, min: number, max: number): number => min + Math.floor(r() * (max - min + 1));
export const pick = <T>(r: Random, items: readonly T[]): T => items[Math.floor(r() * items.length)]!;

/** A picker over [value, weight] pairs (cumulative weights, binary search). */
export function weighted<T>(pairs: readonly (readonly [T, number])[]): (r: Random) => T {
  const values = pairs.map((p) => p[0]);
  const cumulative: number[] = [];
  let total = 0;
  for (const [, w] of pairs) cumulative.push((total += w));
  return (r) => {
    const x = r() * total;
    let lo = 0;
    let hi = cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid]! > x) hi = mid;
      else lo = mid + 1;
    }
    return values[lo]!;
  };
}

const MALE = [
  'José', 'Juan', 'Carlos', 'Luis', 'Jorge', 'Andrés', 'Jesús', 'Óscar', 'Édgar', 'Martín', 'Julián', 'Sebastián',
  'Nicolás', 'Tomás', 'Iván', 'Rubén', 'Ramón', 'Germán', 'Hernán', 'Fabián', 'Adrián', 'Joaquín', 'Héctor',
  'Álvaro', 'Víctor', 'Raúl', 'Efraín', 'Simón', 'Darío', 'Mauricio', 'Alejandro', 'Diego', 'Fernando', 'Ricardo',
  'Gustavo', 'Manuel', 'Pedro', 'Miguel', 'Camilo', 'Esteban', 'Felipe', 'Santiago', 'Hugo', 'Gonzalo', 'Néstor',
  'Rodrigo', 'Alfonso', 'Orlando', 'Wilson', 'Jhon', 'Freddy', 'Humberto', 'Eduardo', 'Ángel', 'Ciro', 'Lisandro',
];
const MALE_COMPOUND = ['José Luis', 'Juan Carlos', 'Luis Fernando', 'Carlos Andrés', 'Juan David', 'Jesús Antonio', 'Luis Ángel', 'José Joaquín', 'Juan Sebastián', 'Óscar Iván'];
const FEMALE = [
  'María', 'Ana', 'Luz', 'Carmen', 'Rosa', 'Martha', 'Sofía', 'Lucía', 'Valentina', 'Mónica', 'Verónica', 'Inés',
  'Beatriz', 'Patricia', 'Sandra', 'Claudia', 'Liliana', 'Ángela', 'Mariana', 'Natalia', 'Andrea', 'Paola', 'Diana',
  'Gloria', 'Nohemí', 'Belén', 'Raquel', 'Leonor', 'Yolanda', 'Marlén', 'Jazmín', 'Rocío', 'Consuelo', 'Amparo',
  'Esperanza', 'Pilar', 'Dolores', 'Nidia', 'Zoraida', 'Fabiola', 'Daniela', 'Catalina', 'Isabel', 'Elena',
  'Adriana', 'Yésica', 'Xiomara', 'Edelmira', 'Myriam', 'Ruth',
];
const FEMALE_COMPOUND = ['María José', 'Ana María', 'Luz Marina', 'María Fernanda', 'Luz Ángela', 'María del Pilar', 'María Inés', 'Ana Sofía', 'Luz Dary', 'María Teresa'];

// Weights roughly follow how common each surname is in Santander. 'Urquijo' is kept rare on purpose: the
// benchmark's "rare surname" search looks for it.
const SURNAMES: readonly (readonly [string, number])[] = [
  ['González', 30], ['Rodríguez', 28], ['Gómez', 26], ['Martínez', 22], ['Pérez', 20], ['López', 20], ['García', 20],
  ['Hernández', 18], ['Díaz', 16], ['Sánchez', 16], ['Ramírez', 15], ['Torres', 14], ['Rojas', 14], ['Suárez', 12],
  ['Flórez', 12], ['Ortiz', 12], ['Jaimes', 12], ['Rueda', 12], ['Ardila', 12], ['Serrano', 11], ['Mantilla', 10],
  ['Villamizar', 10], ['Quintero', 10], ['Muñoz', 10], ['Cáceres', 9], ['Peña', 9], ['Vargas', 9], ['Moreno', 9],
  ['Sepúlveda', 8], ['Durán', 8], ['Duarte', 8], ['Castro', 8], ['Jiménez', 8], ['Carreño', 7], ['Galvis', 7],
  ['Pinzón', 7], ['Acevedo', 7], ['Parra', 7], ['Prada', 6], ['Plata', 6], ['Uribe', 6], ['Niño', 6], ['Becerra', 6],
  ['Chaparro', 6], ['Delgado', 6], ['Barrera', 6], ['Reyes', 6], ['Arenas', 5], ['Báez', 5], ['Beltrán', 5],
  ['Calderón', 5], ['Cárdenas', 5], ['Núñez', 5], ['Sarmiento', 5], ['Velásquez', 5], ['Gélvez', 4], ['Estévez', 4],
  ['Bohórquez', 4], ['Ordóñez', 4], ['Benítez', 4], ['Castañeda', 4], ['Ibáñez', 3], ['Meléndez', 3],
  ['Avendaño', 3], ['Santamaría', 3], ['Echeverría', 0.5], ['Zárate', 1], ['Ñáñez', 0.5], ['Urquijo', 0.05],
];
const surname = weighted(SURNAMES);

/** Search fragments the benchmark uses: one surname every tenth patient carries, and one very few carry. */
export const COMMON_SURNAME_FRAGMENT = 'gonz';
export const RARE_SURNAME_FRAGMENT = 'urquij';
/**
 * A search of two words found apart (decision 0070): 'María' begins a fifth of the women's given names (María
 * Fernanda, Ana María…) and 'Rodríguez' is the second most common surname: about one patient in a hundred has
 * both (1,084 of 100,000, 839 of them active), only one in eight of those as the phrase 'maria rodriguez'.
 */
export const TWO_WORDS = 'maria rodriguez';

export function personName(r: Random, genero: 'M' | 'F' | 'O'): { nombre: string; apellido: string } {
  const female = genero === 'F' || (genero === 'O' && r() < 0.5);
  const compound = r() < 0.3;
  const nombre = female
    ? compound ? pick(r, FEMALE_COMPOUND) : pick(r, FEMALE)
    : compound ? pick(r, MALE_COMPOUND) : pick(r, MALE);
  // Nearly everyone carries two surnames; a few foreigners only one.
  const first = surname(r);
  let second = surname(r);
  if (second === first) second = surname(r);
  const apellido = r() < 0.97 ? `${first} ${second}` : first;
  return { nombre, apellido };
}

const digits = (r: Random, n: number): string => {
  let s = '';
  for (let i = 0; i < n; i++) s += String(Math.floor(r() * 10));
  return s;
};

// Prefixes of cédulas issued in Santander: new 10-digit series (1098…, 1095…, 1005…) and the older 8-digit
// ones (91… men, 63… women, 13…, 37…, 28…). The benchmark's POST create uses documentos starting with 5,
// which this never produces.
const CC_PREFIX = weighted<readonly [string, number]>([
  [['1098', 6], 30], [['1095', 6], 8], [['1096', 6], 5], [['1099', 6], 4], [['1100', 6], 4], [['1102', 6], 4],
  [['1005', 6], 6], [['91', 6], 14], [['63', 6], 14], [['13', 6], 5], [['37', 6], 3], [['28', 6], 3],
]);
const LETTERS = 'ABCDEFGHJKLMNPRSTUVWXYZ';

export function documento(r: Random): { tipo_documento: string; documento: string } {
  const x = r();
  if (x < 0.94) {
    const [prefix, n] = CC_PREFIX(r);
    return { tipo_documento: 'CC', documento: prefix + digits(r, n) };
  }
  if (x < 0.96) return { tipo_documento: 'CE', documento: pick(r, ['1', '2', '3', '4', '6', '7', '8', '9']) + digits(r, 6) };
  if (x < 0.975) return { tipo_documento: 'PA', documento: pick(r, [...LETTERS]) + pick(r, [...LETTERS]) + digits(r, 7) };
  if (x < 0.99) return { tipo_documento: 'PE', documento: '8' + digits(r, 14) };
  return { tipo_documento: 'TI', documento: '1097' + digits(r, 6) };
}

const SANTANDER_CITY = weighted<string>([
  ['BUCARAMANGA', 40], ['FLORIDABLANCA', 15], ['GIRÓN', 8], ['PIEDECUESTA', 8], ['BARRANCABERMEJA', 8],
  ['SAN GIL', 4], ['SOCORRO', 2], ['LEBRIJA', 1], ['MÁLAGA', 1], ['BARBOSA', 1], ['RIONEGRO', 1], ['*', 11],
]);
const OTHER_DEPARTAMENTO = weighted<string>([
  ['NORTE DE SANTANDER', 8], ['BOYACÁ', 5], ['CESAR', 3], ['BOGOTÁ, D.C.', 4], ['ANTIOQUIA', 2], ['ARAUCA', 1],
  ['CUNDINAMARCA', 1], ['BOLÍVAR', 1],
]);

/** A valid DIVIPOLA pair: three in four in SANTANDER, most of those in the metropolitan area. */
export function lugar(r: Random): { departamento: string; ciudad: string } {
  if (r() < 0.75) {
    const c = SANTANDER_CITY(r);
    return { departamento: 'SANTANDER', ciudad: c === '*' ? pick(r, municipiosOf('SANTANDER')) : c };
  }
  const departamento = OTHER_DEPARTAMENTO(r);
  const municipios = municipiosOf(departamento);
  if (municipios.length === 0) throw new Error(`DIVIPOLA lacks ${departamento}`);
  return { departamento, ciudad: pick(r, municipios) };
}

export const MEDICOS = [
  'Dr. Carlos Ardila Rueda', 'Dra. Martha Serrano Gómez', 'Dr. Julián Mantilla Prada', 'Dra. Ángela Villamizar Durán',
  'Dr. Héctor Cáceres Pinzón', 'Dra. Lucía Sepúlveda Niño', 'Dr. Andrés Galvis Peña', 'Dra. Sofía Jaimes Ortiz',
];
export const ESPECIALIDADES = ['Neumología', 'Otorrinolaringología', 'Neurología', 'Medicina interna', 'Psiquiatría', 'Medicina general', 'Cardiología'];
export const MOTIVOS_TERMINACION = [
  'Completó los 18 meses del programa',
  'Alta por adherencia adecuada a CPAP',
  'Retiro voluntario del paciente',
  'Cambio de EPS',
  'Traslado a otra ciudad',
  'No asistió a controles',
];
export const MOTIVOS_SUSPENSION = ['Viaje prolongado', 'Hospitalización', 'Pendiente autorización de la EPS', 'Incapacidad temporal'];

export function telefono(r: Random): string {
  return `607${intBetween(r, 6, 6)}${digits(r, 6)}`;
}

export function celular(r: Random): string {
  return `3${pick(r, ['00', '01', '02', '04', '05', '10', '11', '12', '13', '14', '15', '16', '17', '18', '20', '21', '23', '50'])}${digits(r, 7)}`;
}
