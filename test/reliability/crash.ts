// npm run reliability:crash -- [ROUNDS] [--engine sqlite|postgres]
// Kills the real server with SIGKILL at random moments under write load, restarts it, and checks that nothing
// acknowledged was lost and nothing was left half done. ROUNDS defaults to RELIABILITY_ROUNDS or 20.
// PostgreSQL uses TEST_PG_URL (an administrative URL; a database is created and dropped).
import { parseArgs } from 'node:util';
import { runCrashHarness } from './lib/crash.js';
import { say } from './lib/server.js';

const { values, positionals } = parseArgs({ options: { engine: { type: 'string', default: 'sqlite' }, seed: { type: 'string' } }, allowPositionals: true });
const rounds = Number(positionals[0] ?? process.env.RELIABILITY_ROUNDS ?? 20);
const engine = values.engine === 'postgres' || values.engine === 'pg' ? 'postgres' : 'sqlite';
if (!Number.isInteger(rounds) || rounds < 1) {
  console.error('Uso: npm run reliability:crash -- [RONDAS] [--engine sqlite|postgres] [--seed N]');
  process.exit(2);
}
const report = await runCrashHarness({ engine, rounds, seed: values.seed ? Number(values.seed) : undefined });
if (report.problems.length > 0) {
  say(`crash: FAILED\n  ${report.problems.join('\n  ')}`);
  process.exit(1);
}
say('crash: OK');
