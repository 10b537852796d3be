/**
 * What upgrade tests start from: a fresh database of `backend` migrated only up to `schema` (as
 * the version that made it left it), with the organizations `portico` and `acme` and acme's space
 * `docs`, and the secret box the server will open it with. The test writes the rest, closes
 * `old` and starts the platform on `config`.
 */
import { SecretBox } from '../access/secret-box.js';
import { openDatabase } from '../storage/database.js';
import { loadMigrations, migrate } from '../storage/migrate.js';
import { type Backend, SECRET_KEY } from './backends.js';

export async function databaseAtSchema(backend: Backend, schema: number, cleanups: (() => Promise<void>)[]) {
  const { config, cleanup } = await backend.fresh();
  cleanups.push(cleanup);
  const old = openDatabase({ url: config.databaseUrl, sqliteFile: `${config.dataDir}/portico.db` });
  await migrate(
    old,
    loadMigrations(old.dialect).filter((m) => m.id <= schema),
  );
  for (const id of ['portico', 'acme']) {
    await old.db
      .insertInto('organizations')
      .values({ id, title: id === 'acme' ? 'Acme' : 'Portico', subdomain: null, created_at: 1 })
      .execute();
  }
  await old.db
    .insertInto('spaces')
    .values({ id: 'docs', organization_id: 'acme', title: 'Docs', created_at: 1 })
    .execute();
  return { config, old, db: old.db, box: new SecretBox(Buffer.from(SECRET_KEY, 'base64')) };
}
