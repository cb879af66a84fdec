/**
 * `servers/gateway.ts` with the request inspector off (`RSG_INSPECTOR=off`): the other side of the
 * inspector's cost, for `gateway-steps.ts` (`bench:gateway` starts `gateway.ts` with the variable set).
 */
process.env.RSG_INSPECTOR = 'off';
await import('./gateway.ts');
