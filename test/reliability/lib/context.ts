// One test context per file, with the route table collected and a seeded world to fill route parameters.
import './routes.js';
import { createTestContext, createUser, type TestContext } from '../../helpers.js';
import { Client } from './client.js';
import { anyExamId, seedPatient, type World } from './world.js';

export interface ReliabilityContext extends TestContext {
  world: World;
  /** A new user and a client logged in as them (each with its own client address). */
  loggedIn(options?: { isAdmin?: boolean }): Promise<{ client: Client; user: { id: number; username: string; password: string } }>;
}

export async function createReliabilityContext(options: Parameters<typeof createTestContext>[0] = {}): Promise<ReliabilityContext> {
  const ctx = await createTestContext(options);
  const seeded = await seedPatient(ctx.db);
  const other = await createUser(ctx.db);
  const world: World = { patientId: seeded.patientId, ingresoId: seeded.ingresoId, userId: other.id, examId: await anyExamId(ctx.db) };
  return {
    ...ctx,
    world,
    async loggedIn(opts = {}) {
      const user = await createUser(ctx.db, opts);
      const client = Client.inject(ctx.app);
      await client.login(user.username, user.password);
      return { client, user };
    },
  };
}

/** Prints what a test tried and found (shown in the test output). */
export { say as report } from './server.js';
