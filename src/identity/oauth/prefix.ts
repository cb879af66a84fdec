/** Where the authorization server is mounted (oauth/provider.ts); named apart so that knowing it loads no OAuth library. */
export const OAUTH_PREFIX = '/oauth2';
