/** The header a client names its request by (the gateway's; the renewals' idempotency key). */
export const REQUEST_ID_HEADER_NAME = 'api-business-govt-nz-request-id';
