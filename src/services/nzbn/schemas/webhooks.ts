import { Type } from '@sinclair/typebox';
import { Link, Nullable, Nzbn, NzDateTime, Strict } from '../domain/schema.ts';

/** What a push notification carries: one change event (domain/change-item.ts `changeItem`). */
export const ChangeItem = Type.Object(
  {
    changeEventId: Type.String({ description: 'Stable identifier of the change event' }),
    nzbn: Nzbn,
    entityName: Type.String(),
    entityTypeCode: Type.String(),
    changeEventType: Type.String(),
    changeDate: NzDateTime,
    newValue: Nullable(Type.Unknown({ description: 'The changed data after the change; null when private' })),
    links: Type.Array(Link),
  },
  Strict,
);

const header = (name: string, description: string) => ({
  name,
  in: 'header',
  required: true,
  description,
  schema: { type: 'string' },
});

/**
 * The push notification, published as an OpenAPI 3.1 webhook: what a watchlist's `pushEndpoint`
 * receives. The spec keeps its shape in a separate definition file that is not shown; ours is one change
 * event per request (`ChangeItem`), or a watchlist's test notification (the published TestMessage,
 * `{"text": …}`, sent by POST …/action-send-test-notification).
 */
export const nzbnWebhooks = {
  webhooks: {
    watchlistNotification: {
      post: {
        summary: 'A change on a watchlist, POSTed to its pushEndpoint',
        description:
          'Only a 200 within two minutes counts as delivered. Retries follow 20, 90, 180, 300 and 450 minutes after the original attempt; then the watchlist is suspended and its administrator emailed. Signed with Standard Webhooks: verify webhook-signature with the watchlist’s webhookSecret and drop repeats by webhook-id.',
        parameters: [
          header('webhook-id', 'Identifies the notification; the same on every retry'),
          header('webhook-timestamp', 'Unix seconds (real time) of this attempt'),
          header('webhook-signature', 'v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">'),
          { ...header('authorization', 'The watchlist’s authorizationToken, as given'), required: false },
        ],
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: Type.Union([ChangeItem, Type.Object({ text: Type.String() }, Strict)]),
            },
          },
        },
        responses: { '200': { description: 'Received (any other answer is a failed attempt)' } },
      },
    },
  },
};
