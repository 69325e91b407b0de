// Running `npm run backup` (the real CLI, as a child process) and checking the copy it wrote.
import { execFile } from 'node:child_process';
import SQLite from 'better-sqlite3';
import { ROOT, SECRET } from './server.js';

export interface CliResult {
  code: number;
  out: string;
}

/** Runs a CLI under src/cli with the given DATABASE_URL; never throws for a non-zero exit. */
export function runCli(script: string, args: string[], databaseUrl: string): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', `src/cli/${script}`, ...args],
      { cwd: ROOT, env: { ...process.env, DATABASE_URL: databaseUrl, SIGNING_SECRET: SECRET, APP_ENV: 'test' }, timeout: 120_000 },
      (err, stdout, stderr) => {
        const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? ((err as { code: number }).code) : -1) : 0;
        resolve({ code, out: `${stdout}${stderr}` });
      },
    );
  });
}

export interface CopyCheck {
  integrity: string;
  foreignKeys: number;
  patients: number;
  documentos: Set<string>;
}

/** Opens a copy read-only, runs integrity_check and foreign_key_check, and reads what it holds. */
export function checkCopy(file: string): CopyCheck {
  const db = new SQLite(file, { readonly: true, fileMustExist: true });
  try {
    const integrity = (db.pragma('integrity_check') as { integrity_check: string }[]).map((r) => r.integrity_check).join('; ');
    const foreignKeys = (db.pragma('foreign_key_check') as unknown[]).length;
    const docs = db.prepare('select documento_key from patients').all() as { documento_key: string }[];
    return { integrity, foreignKeys, patients: docs.length, documentos: new Set(docs.map((d) => d.documento_key)) };
  } finally {
    db.close();
  }
}
