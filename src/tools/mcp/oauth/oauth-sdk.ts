/**
 * The SDK's OAuth client (`client/auth.js`, `client/auth-extensions.js`), loaded with the first
 * server that asks for a sign-in: a herald whose servers need none never loads it (mcp-sdk.ts).
 */
export interface OAuthSdk {
  auth: typeof import('@modelcontextprotocol/sdk/client/auth.js').auth;
  extractWWWAuthenticateParams: typeof import('@modelcontextprotocol/sdk/client/auth.js').extractWWWAuthenticateParams;
  UnauthorizedError: typeof import('@modelcontextprotocol/sdk/client/auth.js').UnauthorizedError;
  ClientCredentialsProvider: typeof import('@modelcontextprotocol/sdk/client/auth-extensions.js').ClientCredentialsProvider;
  PrivateKeyJwtProvider: typeof import('@modelcontextprotocol/sdk/client/auth-extensions.js').PrivateKeyJwtProvider;
}

let loading: Promise<OAuthSdk> | undefined;

export function loadOAuthSdk(): Promise<OAuthSdk> {
  loading ??= Promise.all([import('@modelcontextprotocol/sdk/client/auth.js'), import('@modelcontextprotocol/sdk/client/auth-extensions.js')]).then(
    ([auth, extensions]) => ({
      auth: auth.auth,
      extractWWWAuthenticateParams: auth.extractWWWAuthenticateParams,
      UnauthorizedError: auth.UnauthorizedError,
      ClientCredentialsProvider: extensions.ClientCredentialsProvider,
      PrivateKeyJwtProvider: extensions.PrivateKeyJwtProvider,
    }),
    (error: unknown) => {
      loading = undefined;
      throw error;
    },
  );
  return loading;
}
