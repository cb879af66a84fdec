import { Type } from '@sinclair/typebox';

/**
 * The body of every problem+json answer (RFC 9457), as the registers that speak it publish it in their
 * OpenAPI documents: one schema, so the documents cannot drift apart. `errors.ts`'s `problem` renderer
 * writes exactly these members.
 */
export const Problem = Type.Object(
  {
    type: Type.String(),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String(),
    instance: Type.Optional(Type.String()),
    errors: Type.Optional(Type.Array(Type.Object({ field: Type.String(), message: Type.String() }))),
  },
  {
    description:
      'RFC 9457 problem details; errors[].field names the parameter or body field and message the rule',
  },
);
