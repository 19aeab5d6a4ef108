// What a migration needs to know of the engine it runs on.
import type { ColumnDefinitionBuilder } from 'kysely';

export interface MigrationContext {
  /** Column type of an auto-increment integer key on this engine. */
  id: 'integer' | 'serial';
  /** Makes that column the primary key; ids of deleted rows are never handed out again. */
  key: (column: ColumnDefinitionBuilder) => ColumnDefinitionBuilder;
}
