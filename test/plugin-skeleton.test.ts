/**
 * Every plugin has the same shape (ADR 0001, "The plugin skeleton"), so a newcomer who knows one plugin finds
 * their way in the next: the same four files at the top of `src/`, the same four layers, all SQL in `store/`, and
 * wire types in `domain/` so that no layer below the routes imports them. Folders beyond the skeleton are allowed
 * only where they are a real concept of the plugin, and each is declared here with the reason it exists.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The files at the top of every plugin's `src/`. */
const FILES = ['index.ts', 'manifest.ts', 'config.ts', 'errors.ts'];
/** The layers every built plugin has. */
const LAYERS = ['routes', 'service', 'store', 'domain'];
/** Folders any plugin may have. */
const OPTIONAL = { cli: 'the `gatehouse` subcommands the plugin contributes' };
/** Entries allowed at the top of `plugins/<id>/`. */
const PLUGIN_ROOT = ['README.md', 'src', 'test', 'data'];

/** Each plugin's own concepts: folders beside the layers, with why each is one. */
const CONCEPTS: Record<string, Record<string, string>> = {
  auth: {
    deployment:
      'the rules a deployment of sign-in must satisfy, which the operator applies to an AuthConfig too',
  },
  kyc: {
    providers: 'the verification providers behind one interface',
    webhooks: "outbound webhooks: signing, the outbox and deliveries to tenants' endpoints",
    openapi: 'the OpenAPI document generated from the route schemas, and its explorer',
  },
  messaging: {
    classifier: 'intent classification: the rule tiers, the model tier and the gold set',
    conversation: 'the conversation engine: extraction, lead capture, answers and reply texts',
    llm: 'the chat model the classifier and the engine may consult',
    outbound: 'replies to customers: the sender, its claim of the outbox and the provider send API',
    openapi: "the staff API's OpenAPI document, generated from the route schemas",
    // No escalation/: the escalation rules are one pure rule set over a data file, which the processor
    // applies; they live in domain/escalation-rules.ts.
  },
  realtime: {},
};

const PLUGINS = readdirSync(path.join(ROOT, 'plugins'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);

function entries(folder: string): { files: string[]; folders: string[] } {
  const all = readdirSync(path.join(ROOT, folder), { withFileTypes: true });
  return {
    files: all.filter((entry) => entry.isFile()).map((entry) => entry.name),
    folders: all.filter((entry) => entry.isDirectory()).map((entry) => entry.name),
  };
}

/** The plugin's TypeScript sources below `src/` (tests excluded), relative to `src/`. */
function sources(id: string): string[] {
  const src = path.join(ROOT, 'plugins', id, 'src');
  return readdirSync(src, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts'))
    .map((file) => file.split(path.sep).join('/'));
}

function read(id: string, file: string): string {
  return readFileSync(path.join(ROOT, 'plugins', id, 'src', file), 'utf8');
}

/** A string literal that starts with an SQL statement. */
const SQL_TEXT = /["'`]\s*(?:SELECT|INSERT|UPDATE|DELETE|WITH)\s/;
/** A call that sends SQL: `db.query(`, `client.query(`. */
const QUERY_CALL = /\.query\s*[(<]/;
/** Import specifiers of a file. */
const IMPORT = /\bfrom\s+["']([^"']+)["']/g;

it('knows every plugin folder', () => {
  expect(PLUGINS.sort()).toEqual(Object.keys(CONCEPTS).sort());
});

describe.each(PLUGINS)('plugins/%s', (id) => {
  it('has only the skeleton at its top', () => {
    const { files, folders } = entries(`plugins/${id}`);
    expect([...files, ...folders].filter((name) => !PLUGIN_ROOT.includes(name))).toEqual([]);
    expect(files).toContain('README.md');
  });

  it('has the four files and only them at the top of src/', () => {
    const { files } = entries(`plugins/${id}/src`);
    const code = files.filter((name) => !name.endsWith('.test.ts'));
    expect(code.sort()).toEqual([...FILES].sort());
  });

  it('has the layers, and other folders only for its declared concepts', () => {
    const { folders } = entries(`plugins/${id}/src`);
    const allowed = [...LAYERS, ...Object.keys(OPTIONAL), ...Object.keys(CONCEPTS[id] ?? {})];
    expect(folders.filter((name) => !allowed.includes(name))).toEqual([]);
    expect(LAYERS.filter((layer) => !folders.includes(layer))).toEqual([]);
  });

  it('keeps all its SQL in store/', () => {
    const outside = sources(id).filter((file) => !file.startsWith('store/'));
    const withSql = outside.filter((file) => {
      const text = read(id, file);
      return SQL_TEXT.test(text) || QUERY_CALL.test(text);
    });
    expect(withSql).toEqual([]);
  });

  it('keeps wire types out of the lower layers: store/, service/ and domain/ never import routes/', () => {
    const lower = sources(id).filter((file) => /^(?:store|service|domain)\//.test(file));
    const offenders = lower.flatMap((file) =>
      [...read(id, file).matchAll(IMPORT)]
        .map((match) => match[1] ?? '')
        .filter((specifier) =>
          path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier)).startsWith('routes/'),
        )
        .map((specifier) => `${file} imports ${specifier}`),
    );
    expect(offenders).toEqual([]);
  });
});

describe('the checks themselves', () => {
  it('see SQL in a string and a query call, and not in prose', () => {
    expect(SQL_TEXT.test('const q = `\n  SELECT id FROM t`;')).toBe(true);
    expect(SQL_TEXT.test("db.query('INSERT INTO t VALUES ($1)')")).toBe(true);
    expect(QUERY_CALL.test('await client.query<Row>(sql)')).toBe(true);
    expect(SQL_TEXT.test('// Select the newest row, then update it')).toBe(false);
  });
});
