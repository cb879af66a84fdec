/**
 * The gateway's own error codes beyond API Management's refusals (`platform/http/error-codes.ts`):
 * the rules of products, subscriptions and their keys, thrown as `SubscriptionError`s by the admin
 * routes, the portal and the CLI alike.
 */
import { RuleError } from '../platform/errors.ts';
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
  scenarioRefused: errorCode(
    'scenario-refused',
    400,
    'The fault scenario is not one this subscription can have (sandbox only; timeout is the secured interests register’s)',
  ),
} as const satisfies Record<string, ErrorCode>;

/** A product or subscription rule broken: its code (`SUBSCRIPTION_ERRORS`) tells which. */
export class SubscriptionError extends RuleError {
  constructor(code: ErrorCode, field: string, rule: string, message: string) {
    super(field, rule, { code, message });
  }
}
