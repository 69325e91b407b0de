import type { OperationNode, PluginTransformQueryArgs, PluginTransformResultArgs, QueryResult, RootOperationNode, UnknownRow } from 'kysely';
import type { VNode } from 'preact';
import type { Db, Executor } from '../../db/database.js';
import { patientVersionReader, versionReader, versionsReader, type PatientVersion } from './table-versions.js';
import { DERIVED_TABLES, isPatientTable, KNOWN_TABLES, VERSIONED_TABLES, type VersionedTable } from '../tables.js';
import { FragmentCache } from './fragment-cache.js';
import { ADMISSION_WINDOW } from './second-request.js';
import { renderFrame, type Fragment } from '../../web/render.js';
import type { CheckingPlugin } from '../writes/prepared.js';

/**
 * Kept pages (decision 0023). A page whose content depends only on the database and on its parsed input is
 * declared once, with the tables it reads; its content is rendered once per (input, versions of those tables)
 * and kept as bytes. Its key is the whole input (every field the render receives), and its version covers every
 * table it declares, so nothing can be left out of either by hand. Each query a render runs is checked: one that
 * names a table the page did not declare fails (and a test with it) instead of serving a stale page.
 *
 * A page that shows one patient says which (`patient`): its version is then that patient's counter, which covers
 * the patient tables (PATIENT_TABLES of the table registry, src/platform/tables.ts), plus the versions of its other tables, so writes to
 * other patients leave it kept (decision 0049). Its render must read only that patient's rows of the patient
 * tables; the differential test (test/page-cache-differential.test.ts) renders such pages after writes to their
 * patient and to others.
 */
export interface PageDeclaration<Input, Meta> {
  /** For errors and tests. */
  readonly name: string;
  /** Every table the render reads (each versioned in the table registry, src/platform/tables.ts). */
  readonly tables: readonly VersionedTable[];
  /** Bytes of rendered content kept for this page (least recently used dropped first). */
  readonly maxBytes: number;
  /**
   * Renders the content from the database and the input, or null when what the input names does not exist
   * (the route then answers 404). `db` is the only way to the data: it checks the tables each query reads.
   * The node may hold `holes` ContentMarkers where each request puts something of its own.
   */
  render(db: Executor, input: Input): Promise<RenderedPage<Meta> | null>;
  readonly holes?: number;
  /**
   * Which inputs are kept (every one when absent); the others are rendered on each request, as `render` does, and
   * read no version. For inputs asked at random over many more pages than the bound holds, whose entries would
   * mostly be dropped unused (decision 0266).
   */
  readonly keeps?: (input: Input) => boolean;
  /** The one patient the page shows, when it shows one and reads nothing of any other (decision 0049). */
  readonly patient?: (input: Input) => number;
}

export interface RenderedPage<Meta> {
  node: VNode;
  title: string;
  /** What the route needs besides the HTML (for the audit entry of a view, for instance). */
  meta: Meta;
}

export interface KeptPage<Meta> {
  /** The content, cut at its holes: holes + 1 fragments. */
  fragments: Fragment[];
  title: string;
  meta: Meta;
}

/** Kept parts read together (PageCache.together): each kept under the versions read before any of them. */
export interface PagesTogether {
  get<Input, Meta>(page: PageDeclaration<Input, Meta>, input: Input): Promise<KeptPage<Meta> | null>;
}

/** Every page declared in this process, by name: the differential test compares each one (declaredPages). */
const declared = new Map<string, PageDeclaration<any, any>>();

/** Declares a kept page (once, under a name of its own) and registers it. */
export function declarePage<Input, Meta = null>(declaration: PageDeclaration<Input, Meta>): PageDeclaration<Input, Meta> {
  for (const t of declaration.tables) {
    if (!(VERSIONED_TABLES as readonly string[]).includes(t)) throw new Error(`page ${declaration.name}: ${t} has no version`);
  }
  if (declaration.patient && !declaration.tables.some(isPatientTable)) {
    throw new Error(`page ${declaration.name}: it shows one patient but declares none of the patient tables`);
  }
  if (declared.has(declaration.name)) throw new Error(`page ${declaration.name} is declared twice`);
  declared.set(declaration.name, declaration);
  return declaration;
}

/** The pages declared so far (those of every feature once the application is built), in declaration order. */
export function declaredPages(): readonly PageDeclaration<unknown, unknown>[] {
  return [...declared.values()];
}

/** A query of a kept page's render named a table the page did not declare. */
export class UndeclaredTableError extends Error {
  override name = 'UndeclaredTableError';
}

/** The pages of one application instance, kept against the database's table versions (or never, when disabled). */
export class PageCache {
  private readonly caches = new Map<
    PageDeclaration<any, any>,
    {
      cache: FragmentCache<{ bytes: number; kept: KeptPage<any> | null }>;
      db: Db;
      version: (db: Db, input: any) => Promise<string>;
      patientVersion: ((db: Db, input: any) => Promise<PatientVersion>) | undefined;
    }
  >();

  /**
   * `enabled: false` renders every page anew (the differential tests compare both). `admissionWindow`: how many
   * other inputs a page's input is remembered among, to be kept from its second render (decision 0375); 0 keeps
   * every input from its first (tests of what the versions do).
   */
  constructor(
    private readonly db: Db,
    readonly enabled = true,
    private readonly admissionWindow = ADMISSION_WINDOW,
  ) {}

  /** The page for this input: kept, or rendered now (and kept); null when the render says it does not exist. */
  async get<Input, Meta>(page: PageDeclaration<Input, Meta>, input: Input): Promise<KeptPage<Meta> | null> {
    if (!this.enabled || page.keeps?.(input) === false) return this.render(page, input);
    // The versions are read before anything the page shows: nothing kept is older than the version it is kept under.
    const version = await this.slotOf(page).version(this.db, input);
    return (await this.keep(page, input, version)).kept;
  }

  /**
   * A page of one patient (declared with `patient`), kept or rendered as `get` does, and the patient's counter read
   * for it before anything it shows: what else the request shows of the patient from that counter (the record's
   * history, decision 0370) reads none of its own. The counter is null when none was read (kept pages off, an input
   * not kept): the caller reads its own then.
   */
  async getOfPatient<Input, Meta>(page: PageDeclaration<Input, Meta>, input: Input): Promise<{ kept: KeptPage<Meta> | null; patientVersion: string | null }> {
    const read = this.slotOf(page).patientVersion;
    if (read === undefined) throw new Error(`page ${page.name} shows no one patient`);
    if (!this.enabled || page.keeps?.(input) === false) return { kept: await this.render(page, input), patientVersion: null };
    const version = await read(this.db, input);
    return { kept: (await this.keep(page, input, version.version)).kept, patientVersion: version.patient };
  }

  /**
   * Two kept pages shown together (the dashboard and the agenda's counts in its hole): the same as two `get`s, with
   * both versions read in one statement before either page (decision 0220). Pages kept by table versions only.
   */
  async getBoth<A, MA, B, MB>(
    a: PageDeclaration<A, MA>,
    inputA: A,
    b: PageDeclaration<B, MB>,
    inputB: B,
  ): Promise<[KeptPage<MA> | null, KeptPage<MB> | null]> {
    const both = await this.together([a, b]);
    return [await both.get(a, inputA), await both.get(b, inputB)];
  }

  /**
   * Kept parts of one page (a worklist, its links and filter, the professionals it checks its filter against): the
   * versions of all of them read in one statement before any of them (decision 0220), then each part kept or
   * rendered when the route asks for it, in the route's order, so that one part's input may come from another's meta
   * (decision 0265). Pages kept by table versions only; a part not named here is refused.
   */
  async together(pages: readonly PageDeclaration<any, any>[]): Promise<PagesTogether> {
    if (!this.enabled) return { get: (page, input) => this.render(page, input) };
    const versions = await this.readerOf(pages)(this.db);
    return {
      get: async (page, input) => {
        const at = pages.indexOf(page);
        if (at < 0) throw new Error(`page ${page.name} was not read with ${pages.map((p) => p.name).join(', ')}`);
        if (page.keeps?.(input) === false) return this.render(page, input);
        return (await this.keep(page, input, versions[at]!)).kept;
      },
    };
  }

  private readonly readers = new Map<string, (db: Db) => Promise<string[]>>();

  private readerOf(pages: readonly PageDeclaration<any, any>[]): (db: Db) => Promise<string[]> {
    const key = pages.map((p) => p.name).join('\n');
    let reader = this.readers.get(key);
    if (reader === undefined) {
      for (const p of pages) if (p.patient !== undefined) throw new Error(`page ${p.name}: pages read together are kept by table versions`);
      reader = versionsReader(pages.map((p) => p.tables));
      this.readers.set(key, reader);
    }
    return reader;
  }

  /** The page's entry kept under `version`, or rendered now (and kept). */
  private keep<Input, Meta>(page: PageDeclaration<Input, Meta>, input: Input, version: string): Promise<{ bytes: number; kept: KeptPage<Meta> | null }> {
    return this.slotOf(page).cache.get(version, keyOf(input), async () => {
      const rendered = await this.render(page, input);
      return { bytes: rendered?.fragments.reduce((n, f) => n + f.size, 0) ?? 0, kept: rendered };
    });
  }

  /** Requests of kept pages served from the cache, and those rendered (every page of this instance so far). */
  counts(): { hits: number; misses: number } {
    let hits = 0;
    let misses = 0;
    for (const { cache } of this.caches.values()) {
      hits += cache.hits;
      misses += cache.misses;
    }
    return { hits, misses };
  }

  /** Bytes kept for each page by its bound's count, by page name (GET /healthz/memory). */
  keptBytes(): Record<string, number> {
    return Object.fromEntries([...this.caches].map(([page, { cache }]) => [page.name, cache.size]));
  }

  /** The page rendered now and not kept (a form posted with errors): the same render as the kept one. */
  async render<Input, Meta>(page: PageDeclaration<Input, Meta>, input: Input): Promise<KeptPage<Meta> | null> {
    const rendered = await page.render(this.slotOf(page).db, input);
    if (rendered === null) return null;
    return { fragments: renderFrame(rendered.node, page.holes ?? 0), title: rendered.title, meta: rendered.meta };
  }

  private slotOf(page: PageDeclaration<any, any>) {
    let slot = this.caches.get(page);
    if (slot === undefined) {
      // Pages of one patient keep each patient's entry under its own version; the others share the tables'.
      const patientVersion = patientVersionOf(page);
      slot = {
        cache: new FragmentCache(page.maxBytes, page.patient === undefined, this.admissionWindow),
        db: this.db.withPlugin(new DeclaredTablesOnly(page)),
        version: patientVersion ? async (db, input) => (await patientVersion(db, input)).version : versionReader(page.tables),
        patientVersion,
      };
      this.caches.set(page, slot);
    }
    return slot;
  }
}

/** How the version of a page of one patient is read: its patient's counter and its other tables' (none for the others). */
function patientVersionOf<Input>(page: PageDeclaration<Input, unknown>): ((db: Db, input: Input) => Promise<PatientVersion>) | undefined {
  const { patient } = page;
  if (patient === undefined) return undefined;
  const read = patientVersionReader(page.tables);
  return (db, input) => read(db, patient(input));
}

/**
 * The whole input as text. Two inputs with the same values written in another key order get two keys: a second
 * entry, never a wrong page.
 */
export const keyOf = (input: unknown): string => JSON.stringify(input);

// ---------------------------------------------------------------------------------------------------------
// Which tables a query reads: every table node of Kysely's tree, and every table of the registry named in raw SQL.

const KNOWN = new Set(KNOWN_TABLES);
const RAW_TABLE = new RegExp(`\\b(${KNOWN_TABLES.join('|')})\\b`, 'g');

/**
 * The tables raw SQL names, by its fragments. A tagged template's fragments are one array per place in the code, so
 * each place is searched once: a worklist's query holds dozens of raw fragments, searched on every render before.
 */
const rawTables = new WeakMap<readonly string[], readonly string[]>();
function rawTablesOf(fragments: readonly string[]): readonly string[] {
  let tables = rawTables.get(fragments);
  if (tables === undefined) {
    tables = [...new Set(fragments.flatMap((fragment) => [...fragment.matchAll(RAW_TABLE)].map((m) => m[1]!)))];
    rawTables.set(fragments, tables);
  }
  return tables;
}

/** The schema's tables a query's tree names (its own tables, joins, subqueries, and inside raw SQL). */
export function tablesOf(node: OperationNode): Set<string> {
  const found = new Set<string>();
  const visit = (value: unknown): void => {
    if (value === null || typeof value !== 'object') return;
    if (Array.isArray(value)) {
      for (const v of value) visit(v);
      return;
    }
    const n = value as { kind?: string; table?: { identifier?: { name?: string } }; sqlFragments?: readonly string[] };
    // A table node also stands for an alias in a column reference (p.id): only the schema's tables count.
    if (n.kind === 'TableNode' && n.table?.identifier?.name && KNOWN.has(n.table.identifier.name)) found.add(n.table.identifier.name);
    if (n.kind === 'RawNode' && n.sqlFragments) for (const table of rawTablesOf(n.sqlFragments)) found.add(table);
    for (const v of Object.values(value)) visit(v);
  };
  visit(node);
  return found;
}

/**
 * Refuses, before it runs, a query of a page's render that reads a table the page did not declare. It only
 * checks: a precompiled statement is checked once (src/platform/writes/prepared.ts).
 */
class DeclaredTablesOnly implements CheckingPlugin {
  readonly checksOnly = true;
  private readonly allowed: Set<string>;

  constructor(private readonly page: PageDeclaration<any, any>) {
    // A derived table only when every table it is kept from is declared: a change of any of them changes it.
    this.allowed = new Set([...page.tables, ...Object.keys(DERIVED_TABLES).filter((t) => DERIVED_TABLES[t]!.every((s) => page.tables.includes(s)))]);
  }

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    for (const table of tablesOf(args.node)) {
      if (!this.allowed.has(table)) {
        throw new UndeclaredTableError(`page ${this.page.name} reads ${table}, which it does not declare (tables: ${[...this.allowed].join(', ')})`);
      }
    }
    return args.node;
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return args.result;
  }
}
