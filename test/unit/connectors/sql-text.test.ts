/** The PostgreSQL connectors' SQL: identifiers quoted, values as parameters, statements within the parameter limit. */
import assert from 'node:assert/strict';
import { insertText, lookupText, quoteIdent, quoteTable, rowsPerStatement, unnestInsertText } from '../../../connectors/postgres/sql-text.js';

describe('connectors: PostgreSQL statements', () => {
  it('quotes identifiers, and each part of schema.table', () => {
    assert.equal(quoteIdent('a"b'), '"a""b"');
    assert.equal(quoteIdent('a.b'), '"a.b"', 'a column name is one identifier');
    assert.equal(quoteTable('app.events'), '"app"."events"');
  });

  it('writes a multi-row upsert, insert-or-nothing and plain insert', () => {
    assert.equal(
      insertText('t', ['id', 'n'], 2, { kind: 'update', keys: ['id'], set: ['n'] }),
      'INSERT INTO "t" ("id","n") VALUES ($1,$2),($3,$4) ON CONFLICT ("id") DO UPDATE SET "n" = EXCLUDED."n"',
    );
    assert.equal(insertText('t', ['id'], 1, { kind: 'update', keys: ['id'], set: [] }), 'INSERT INTO "t" ("id") VALUES ($1) ON CONFLICT ("id") DO NOTHING');
    assert.equal(insertText('t', ['id', 'n'], 1, { kind: 'nothing', keys: ['id'] }), 'INSERT INTO "t" ("id","n") VALUES ($1,$2) ON CONFLICT ("id") DO NOTHING');
    assert.equal(insertText('t', ['id', 'n'], 1, { kind: 'none' }), 'INSERT INTO "t" ("id","n") VALUES ($1,$2)');
  });

  it('writes a batch as one array per column through unnest, the same text for every batch', () => {
    assert.equal(
      unnestInsertText('app.t', ['id', 'n'], ['text', 'character varying(20)'], { kind: 'update', keys: ['id'], set: ['n'] }),
      'INSERT INTO "app"."t" ("id","n") SELECT * FROM unnest($1::text[], $2::character varying(20)[]) ON CONFLICT ("id") DO UPDATE SET "n" = EXCLUDED."n"',
    );
    assert.equal(unnestInsertText('t', ['id'], ['bigint'], { kind: 'none' }), 'INSERT INTO "t" ("id") SELECT * FROM unnest($1::bigint[])');
  });

  it('keeps rows × columns within 65 535 parameters', () => {
    assert.equal(rowsPerStatement(2), 32_767);
    assert.equal(rowsPerStatement(70_000), 1);
  });

  it('looks a batch of keys up in one query', () => {
    assert.equal(lookupText('users', 'id', ['name', 'id']), 'SELECT "id", "name" FROM "users" WHERE "id" = ANY($1)');
  });
});
