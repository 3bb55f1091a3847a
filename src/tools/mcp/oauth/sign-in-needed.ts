/**
 * A server that waits for a person to sign in (again): its refresh failed, it never had a
 * sign-in, or it asks for a wider scope. Not a fault to retry: its connection waits, without
 * backoff, until a sign-in is finished (state `needs_authorization`).
 */
export class SignInNeeded extends Error {
  constructor(
    message: string,
    /** the scope the sign-in should ask for, when the server said */
    readonly scope?: string,
  ) {
    super(message);
    this.name = 'SignInNeeded';
  }
}

/** the same test across module copies (the SDK's transport rethrows what fetch threw) */
export const isSignInNeeded = (error: unknown): error is SignInNeeded => error instanceof Error && error.name === 'SignInNeeded';
