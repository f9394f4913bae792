/** The PostgreSQL connectors' SQL: identifiers quoted, values as parameters, statements within the parameter limit. */
import assert from 'node:assert/strict';
import { insertText, lookupText, quoteIdent, quoteTable, rowsPerStatement } from '../../../connectors/postgres/sql-text.js';

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

  it('keeps rows × columns within 65 535 parameters', () => {
    assert.equal(rowsPerStatement(2), 32_767);
    assert.equal(rowsPerStatement(70_000), 1);
  });

  it('looks a batch of keys up in one query', () => {
    assert.equal(lookupText('users', 'id', ['name', 'id']), 'SELECT "id", "name" FROM "users" WHERE "id" = ANY($1)');
  });
});
