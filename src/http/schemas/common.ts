// Schemas shared by every API area.
import { Type } from 'typebox';
import { maxId } from '../../store/schema.ts';

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

/** The largest list offset: no list holds more rows than there are ids. */
export const maxOffset = maxId;

/**
 * An integer within bounds, for query and path values (which arrive as text). ajv coerces "1e309"
 * to Infinity and its range keywords skip non-finite numbers; the inner type check runs on the
 * coerced value and refuses it, so no bound can be passed by writing the number differently.
 */
export function BoundedInteger(options: { minimum: number; maximum: number; description?: string }) {
  return Type.Integer({ ...options, allOf: [{ type: 'integer' }] });
}

/**
 * A string member that must arrive as one: with coerceTypes, ajv would turn 42 into "42" and a name
 * would silently change. The schema documents it; the use case refuses anything but a string.
 */
export function UncoercedString(description: string) {
  return Type.Unknown({ description: `A string: ${description}` });
}

export const IntegerId = BoundedInteger({ minimum: 1, maximum: maxId });
