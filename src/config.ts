import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { WORKERS_MESSAGE, workersFrom } from './platform/launch/runtime-flags.js';

/** A configuration problem that must stop the start; the message names the variable. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

const listOf = (raw: string | undefined): string[] =>
  (raw ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);

const isValidTimeZone = (tz: string): boolean => {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
};

const envSchema = z.object({
  // Port and interface the HTTP server listens on.
  // Digits only: coercion would read an empty PORT= as 0 (a random port) instead of stopping the start.
  PORT: z
    .string()
    .trim()
    .regex(/^\d{1,5}$/, 'debe ser un número de puerto (0 a 65535)')
    .transform(Number)
    .pipe(z.number().int().max(65535, 'debe ser un número de puerto (0 a 65535)'))
    .default(8000),
  HOST: z.string().min(1).default('127.0.0.1'),
  // sqlite:PATH or postgres://… ; without it, a SQLite file under data/.
  DATABASE_URL: z
    .string()
    .regex(/^(sqlite:.+|postgres(ql)?:\/\/.+)$/, 'debe ser sqlite:RUTA o postgres://…')
    .optional(),
  // Secret that signs cookies and CSRF tokens; required in production.
  SIGNING_SECRET: z.string().min(32, 'debe tener al menos 32 caracteres').optional(),
  // Business time zone: what "today" means for mes_capita and dates.
  TIME_ZONE: z.string().refine(isValidTimeZone, 'zona horaria IANA desconocida').default('America/Bogota'),
  // The hosting environment marker.
  APP_ENV: z.enum(['development', 'production', 'test']).default('development'),
  // Host names accepted in production (comma-separated).
  ALLOWED_HOSTS: z.string().optional(),
  // Origins accepted on POSTs besides the site's own, in every environment (comma-separated, e.g. https://somno.example.co).
  TRUSTED_ORIGINS: z.string().optional(),
  // Trust X-Forwarded-* from a reverse proxy: true, false, a hop count or a list of addresses.
  TRUST_PROXY: z.string().optional(),
  // Minutes without a request after which a session ends.
  SESSION_IDLE_MINUTES: z.coerce.number().int().min(1).max(24 * 60).default(30),
  // Login attempts per minute from one client address (a flood guard; the per-user-name lock stops guessing).
  LOGIN_ATTEMPTS_PER_MINUTE: z
    .string()
    .trim()
    .regex(/^\d{1,7}$/, 'debe ser un número entero de 1 a 1000000')
    .transform(Number)
    .pipe(z.number().int().min(1, 'debe ser un número entero de 1 a 1000000').max(1_000_000, 'debe ser un número entero de 1 a 1000000'))
    .default(120),
  // One log line a request (method, path, status, time). Off by default (decision 0016): it was 15 % of a page's
  // time; the reverse proxy keeps an access log, and every access to patient data is in the audit trail.
  LOG_REQUESTS: z.enum(['true', 'false'], { message: 'debe ser true o false' }).default('false'),
  // Server processes sharing the port: a number or auto (one per core). Read by the launcher (dist/server.js),
  // checked here too so that a bad value stops any start with the same message (decision 0190).
  WORKERS: z
    .string()
    .optional()
    .refine((raw) => workersFrom({ WORKERS: raw }, 1) !== null, WORKERS_MESSAGE),
});

/** The names of every variable the server reads (deploy/somno.env.example lists them all: a test checks it). */
export const CONFIG_VARIABLES: readonly string[] = Object.keys(envSchema.shape);

export interface Config {
  readonly port: number;
  readonly host: string;
  readonly databaseUrl: string;
  readonly signingSecret: string;
  readonly timeZone: string;
  readonly appEnv: 'development' | 'production' | 'test';
  readonly isProduction: boolean;
  readonly allowedHosts: readonly string[];
  readonly trustedOrigins: readonly string[];
  readonly trustProxy: boolean | number | string[];
  readonly sessionIdleMinutes: number;
  /** Login attempts a minute accepted from one client address (LOGIN_ATTEMPTS_PER_MINUTE). */
  readonly loginAttemptsPerMinute: number;
  /** Whether each request is logged (errors always are). */
  readonly logRequests: boolean;
  /** Sessions end after this many hours whatever the activity. */
  readonly sessionAbsoluteHours: number;
  readonly dataDir: string;
}

const parseTrustProxy = (raw: string | undefined): boolean | number | string[] => {
  if (raw === undefined || raw === '' || raw === 'false') return false;
  if (raw === 'true') return true;
  if (/^\d+$/.test(raw)) return Number(raw);
  const list = listOf(raw);
  if (list.length === 0) throw new ConfigError('TRUST_PROXY: valor no válido');
  return list;
};

/** Outside production the secret is generated once and kept under data/. */
const developmentSecret = (dataDir: string): string => {
  const file = path.join(dataDir, 'signing-secret');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(32).toString('hex');
  writeFileSync(file, secret, { mode: 0o600 });
  return secret;
};

export function loadConfig(env: NodeJS.ProcessEnv = process.env, dataDir = path.resolve('data')): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigError(`Configuración no válida: ${String(issue.path[0])}: ${issue.message}`);
  }
  const e = parsed.data;
  const isProduction = e.APP_ENV === 'production';
  if (isProduction && !e.SIGNING_SECRET) {
    throw new ConfigError('Configuración no válida: SIGNING_SECRET es obligatorio en producción (APP_ENV=production)');
  }
  const allowedHosts = listOf(e.ALLOWED_HOSTS).map((h) => h.toLowerCase());
  if (isProduction && allowedHosts.length === 0) {
    throw new ConfigError('Configuración no válida: ALLOWED_HOSTS es obligatorio en producción (APP_ENV=production)');
  }
  const trustedOrigins = listOf(e.TRUSTED_ORIGINS);
  for (const origin of trustedOrigins) {
    if (!/^https?:\/\/[^/\s]+$/.test(origin)) {
      throw new ConfigError(`Configuración no válida: TRUSTED_ORIGINS: origen no válido «${origin}»`);
    }
  }
  let trustProxy: Config['trustProxy'];
  try {
    trustProxy = parseTrustProxy(e.TRUST_PROXY);
  } catch (err) {
    throw err instanceof ConfigError ? err : new ConfigError('TRUST_PROXY: valor no válido');
  }
  const config: Config = {
    port: e.PORT,
    host: e.HOST,
    databaseUrl: e.DATABASE_URL ?? `sqlite:${path.join(dataDir, 'somno.sqlite')}`,
    signingSecret: e.SIGNING_SECRET ?? developmentSecret(dataDir),
    timeZone: e.TIME_ZONE,
    appEnv: e.APP_ENV,
    isProduction,
    allowedHosts,
    trustedOrigins,
    trustProxy,
    sessionIdleMinutes: e.SESSION_IDLE_MINUTES,
    loginAttemptsPerMinute: e.LOGIN_ATTEMPTS_PER_MINUTE,
    logRequests: e.LOG_REQUESTS === 'true',
    sessionAbsoluteHours: 12,
    dataDir,
  };
  return Object.freeze(config);
}
