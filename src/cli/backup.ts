// npm run backup -- FILE: a consistent copy of the SQLite database, taken while the server runs.
//
// VACUUM INTO reads the database inside one read transaction (a snapshot: WAL lets the server keep writing) and
// writes a compact, self-contained file. The copy goes to FILE.partial first and is renamed only after it passed
// PRAGMA integrity_check, so FILE is either a complete, checked copy or absent.
//
// Exit codes: 0 copy written and checked; 1 the copy failed (message says why); 2 wrong usage, bad configuration,
// or a PostgreSQL database (use pg_dump there).
import { existsSync, renameSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { ConfigError, loadConfig } from '../config.js';
import { engineOf } from '../db/connection.js';

const USAGE = 'Uso: npm run backup -- ARCHIVO   (copia consistente de la base SQLite, con el servidor en marcha)';

function exit(code: number, message: string): never {
  (code === 0 ? console.log : console.error)(message);
  process.exit(code);
}

const args = process.argv.slice(2).filter((a) => a !== '--');
if (args.length !== 1 || args[0]!.startsWith('-')) exit(2, USAGE);
const target = path.resolve(args[0]!);

let databaseUrl: string;
try {
  // Only DATABASE_URL matters here; a placeholder secret keeps loadConfig from writing one under data/.
  databaseUrl = loadConfig({ SIGNING_SECRET: 'backup-does-not-sign-anything-000000', ...process.env }).databaseUrl;
} catch (err) {
  exit(2, err instanceof ConfigError ? err.message : String(err));
}
let engine;
try {
  engine = engineOf(databaseUrl);
} catch (err) {
  exit(2, err instanceof Error ? err.message : String(err));
}
if (engine === 'postgres') {
  exit(
    2,
    'DATABASE_URL apunta a PostgreSQL: npm run backup copia solo bases SQLite.\n' +
      'Para PostgreSQL use pg_dump, por ejemplo:\n  pg_dump --format=custom --file=somno.dump "$DATABASE_URL"\n' +
      'y para restaurar: pg_restore --clean --if-exists --dbname="$DATABASE_URL" somno.dump',
  );
}

const source = path.resolve(databaseUrl.slice('sqlite:'.length));
if (!existsSync(source)) exit(1, `No existe la base de datos ${source} (DATABASE_URL). No se escribió ninguna copia.`);
if (existsSync(target)) exit(1, `El archivo ${target} ya existe; elija otro nombre (no se sobrescriben copias).`);
if (!existsSync(path.dirname(target))) exit(1, `La carpeta ${path.dirname(target)} no existe.`);

const partial = `${target}.partial`;
rmSync(partial, { force: true });
try {
  const db = new SQLite(source, { fileMustExist: true });
  try {
    db.pragma('busy_timeout = 10000');
    db.prepare('VACUUM INTO ?').run(partial);
  } finally {
    db.close();
  }
  const copy = new SQLite(partial, { fileMustExist: true });
  let integrity: string;
  let pages: number;
  try {
    integrity = (copy.pragma('integrity_check') as { integrity_check: string }[]).map((r) => r.integrity_check).join('; ');
    pages = copy.pragma('page_count', { simple: true }) as number;
  } finally {
    copy.close();
  }
  if (integrity !== 'ok') {
    rmSync(partial, { force: true });
    exit(1, `La copia no pasó la verificación de integridad (${integrity}); no se guardó. Revise el disco y repita.`);
  }
  renameSync(partial, target);
  const mb = (statSync(target).size / 1024 / 1024).toFixed(2);
  exit(0, `Copia escrita en ${target} (${pages} páginas, ${mb} MB); integrity_check: ok.`);
} catch (err) {
  rmSync(partial, { force: true });
  exit(1, `No se pudo copiar la base de datos: ${err instanceof Error ? err.message : String(err)}`);
}
