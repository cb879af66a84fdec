-- Authorization codes, refresh tokens and the other credential models are now stored under the
-- SHA-256 (hex) of their value, without the value in the payload (see oauth/adapter.ts). Rows written
-- before this change are converted in place, so refresh tokens already handed out keep working.
UPDATE oidc_payloads
   SET id = encode(sha256(convert_to(id, 'UTF8')), 'hex'),
       payload = payload - 'jti'
 WHERE model IN ('AccessToken', 'AuthorizationCode', 'RefreshToken', 'ClientCredentials',
                 'BackchannelAuthenticationRequest', 'RegistrationAccessToken', 'InitialAccessToken');
