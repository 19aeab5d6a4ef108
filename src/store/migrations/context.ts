// What a migration needs to know of the engine it runs on.
import type { ColumnDefinitionBuilder } from 'kysely';
import type { Engine } from '../database.ts';

export interface MigrationContext {
  engine: Engine;
  /** Column type of an auto-increment integer key on this engine. */
  id: 'integer' | 'serial';
  /** Makes that column the primary key; ids of deleted rows are never handed out again. */
  key: (column: ColumnDefinitionBuilder) => ColumnDefinitionBuilder;
}
