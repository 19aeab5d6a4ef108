// Schemas shared by every API area.
import { Type } from 'typebox';

export const ErrorBody = Type.Object(
  {
    error: Type.String(),
    code: Type.String(),
    fields: Type.Optional(Type.Record(Type.String(), Type.String())),
  },
  { $id: 'Error', description: 'Every error response' },
);

/** Standard error responses to list in a route's schema. */
export const errors = (...statuses: number[]) =>
  Object.fromEntries(statuses.map((s) => [s, Type.Ref('Error')]));

// Ids are PostgreSQL `serial` (32-bit) columns.
export const IntegerId = Type.Integer({ minimum: 1, maximum: 2_147_483_647 });
