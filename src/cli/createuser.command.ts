import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../config.js';
import { openDatabase } from '../db/connection.js';
import { migrateToLatest } from '../db/migrate.js';
import { createUser } from '../users/user.actions.js';
import { cliContext } from './context.js';
import { validatePassword, validateUsername } from '../users/user.rules.js';

export const USAGE = 'Uso: npm run createuser -- --username NOMBRE [--password CLAVE] [--admin]';

export interface CommandIo {
  env: NodeJS.ProcessEnv;
  out(line: string): void;
  err(line: string): void;
  /** Asks for a password without echo; null when there is no terminal to ask on. */
  prompt: ((question: string) => Promise<string>) | null;
}

/** `npm run createuser`: returns the exit code (0 created, 1 refused) after saying why on err. */
export async function createUserCommand(argv: string[], io: CommandIo): Promise<number> {
  let args;
  try {
    args = parseArgs({
      args: argv,
      options: { username: { type: 'string' }, password: { type: 'string' }, admin: { type: 'boolean', default: false } },
      strict: true,
    }).values;
  } catch (err) {
    io.err(`${err instanceof Error ? err.message : String(err)}\n${USAGE}`);
    return 1;
  }
  const username = (args.username ?? '').trim();
  const usernameError = validateUsername(username);
  if (usernameError) {
    io.err(`${usernameError}\n${USAGE}`);
    return 1;
  }
  let password = args.password;
  if (password === undefined) {
    if (!io.prompt) {
      io.err('Falta --password y no hay una terminal para pedirla.');
      return 1;
    }
    password = await io.prompt('Contraseña: ');
    if (password !== (await io.prompt('Repita la contraseña: '))) {
      io.err('Las contraseñas no coinciden.');
      return 1;
    }
  }
  const weak = validatePassword(password, username);
  if (weak) {
    io.err(weak);
    return 1;
  }
  let config;
  try {
    config = loadConfig(io.env);
  } catch (err) {
    io.err(err instanceof ConfigError ? err.message : String(err));
    return 1;
  }
  const handle = openDatabase(config.databaseUrl);
  try {
    await migrateToLatest(handle.db);
    const created = await createUser(cliContext(handle.db, config), { username, password, isAdmin: args.admin ?? false, origin: 'cli' });
    if (!created.ok) {
      io.err(`El usuario «${username}» ya existe.`);
      return 1;
    }
    const isAdmin = args.admin ?? false;
    io.out(`Usuario «${username}» creado${isAdmin ? ' (administrador)' : ''}.`);
    return 0;
  } catch (err) {
    io.err(`No se pudo crear el usuario: ${err instanceof Error ? err.message : String(err)}`);
    return 1;
  } finally {
    await handle.close();
  }
}
