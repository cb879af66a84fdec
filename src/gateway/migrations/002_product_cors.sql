-- Cross-origin resource sharing per product, as API Management's cors policy. Off while cors_origins
-- is NULL; '{*}' allows any origin. Methods, headers, exposed headers and max age keep their values when
-- CORS is turned off, so turning it on again restores them.
ALTER TABLE products
  ADD COLUMN cors_origins text[],
  ADD COLUMN cors_methods text[] NOT NULL DEFAULT '{GET,POST}',
  ADD COLUMN cors_headers text[] NOT NULL
    DEFAULT '{Ocp-Apim-Subscription-Key,Authorization,Content-Type,If-Match,If-None-Match,x-organisation,api-business-govt-nz-Request-Id}',
  ADD COLUMN cors_expose_headers text[] NOT NULL DEFAULT '{}',
  ADD COLUMN cors_max_age integer NOT NULL DEFAULT 600 CHECK (cors_max_age BETWEEN 0 AND 86400),
  ADD COLUMN cors_allow_credentials boolean NOT NULL DEFAULT false,
  -- Browsers refuse credentials with a wildcard origin: the pair is never stored.
  ADD CONSTRAINT products_cors_wildcard_credentials
    CHECK (NOT (cors_allow_credentials AND '*' = ANY (cors_origins)));
