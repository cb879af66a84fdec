/**
 * The gateway's own error codes beyond API Management's refusals (`platform/http/error-codes.ts`):
 * the rules of products, subscriptions and their keys, thrown as `SubscriptionError`s (subscriptions.ts)
 * by the admin routes, the portal and the CLI alike.
 */
import { type ErrorCode, errorCode } from '../platform/http/error-codes.ts';

export const SUBSCRIPTION_ERRORS = {
  unknownProduct: errorCode('unknown-product', 404, 'No product has this id'),
  unknownSubscription: errorCode('unknown-subscription', 404, 'No subscription has this id'),
  unknownUser: errorCode('unknown-user', 404, 'No user has this email address'),
  subscriptionState: errorCode(
    'subscription-state',
    409,
    'The subscription’s state does not allow the change (a cancelled one has no keys; states move one way)',
  ),
} as const satisfies Record<string, ErrorCode>;
