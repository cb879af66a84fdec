import { ChangeItem } from '../routes/changes.ts';

const header = (name: string, description: string) => ({
  name,
  in: 'header',
  required: true,
  description,
  schema: { type: 'string' },
});

/**
 * The push notification, published as an OpenAPI 3.1 webhook: what a watchlist's `pushEndpoint`
 * receives. The spec keeps its shape in a separate definition file that is not shown; ours is the change
 * item of the change event search, one per request.
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
        requestBody: { required: true, content: { 'application/json': { schema: ChangeItem } } },
        responses: { '200': { description: 'Received (any other answer is a failed attempt)' } },
      },
    },
  },
};
