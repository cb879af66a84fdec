/**
 * The published names of every operation (shared reference: operation ids are published as `PPSR_nn`,
 * the specification calls the same numbers `SEC_nn`): the OpenAPI document carries the one as the
 * `operationId` and the other as `x-operation-code`. What is ours is listed in `x-ours`: `operation` (the
 * register publishes no such operation), `operationId` (its number is not known, so the name is ours),
 * `path` (the operation is published, its address is ours). A test keeps every operation named.
 */

type Ours = 'operation' | 'operationId' | 'path';

const NAMES = {
  PPSR_17: { ours: [] },
  PPSR_01: { ours: [] },
  PPSR_03: { ours: ['path'] },
  PPSR_RENEW: { ours: ['operationId', 'path'] },
  PPSR_DISCHARGE: { ours: ['operationId', 'path'] },
  PPSR_55: { ours: ['path'] },
  PPSR_55_VERIFICATION: { ours: ['operation', 'operationId', 'path'] },
  PPSR_40: { ours: ['path'] },
  PPSR_38: { ours: ['path'] },
  PPSR_02: { ours: [] },
  PPSR_02_CERTIFICATE: { ours: ['operation', 'operationId', 'path'] },
  PPSR_02_CERTIFICATE_PDF: { ours: ['operation', 'operationId', 'path'] },
  PPSR_34: { ours: ['path'] },
  PPSR_34_LIST: { ours: ['operationId', 'path'] },
  PPSR_34_GET: { ours: ['operationId', 'path'] },
  PPSR_34_UPDATE: { ours: ['operationId', 'path'] },
  PPSR_34_DELETE: { ours: ['operation', 'operationId', 'path'] },
  PPSR_44: { ours: ['path'] },
  PPSR_45: { ours: ['path'] },
  PPSR_43: { ours: [] },
  PPSR_56: { ours: [] },
} as const satisfies Record<string, { ours: readonly Ours[] }>;

export type OperationName = keyof typeof NAMES;

/** The OpenAPI entries of an operation's names: `operationId`, `x-operation-code`, and `x-ours` if any. */
export function named(name: OperationName): Record<string, unknown> & { operationId: OperationName } {
  const ours: readonly Ours[] = NAMES[name].ours;
  return {
    operationId: name,
    'x-operation-code': name.replace(/^PPSR_/, 'SEC_'),
    ...(ours.length > 0 ? { 'x-ours': [...ours] } : {}),
  };
}
