/** what separates a recipient from the credential it carries */
const MARK = '#token=';

/**
 * A recipient may carry, after `#token=`, a credential the channel needs for that one reply
 * (Discord's interaction token, which opens the interaction's messages for 15 minutes). The
 * credential is never shown (admin API, console, the main session's events), and such a
 * recipient is never remembered as a route: it answers one request and expires.
 */
export function carriesCredential(to: string | null | undefined): boolean {
  return typeof to === 'string' && to.includes(MARK);
}

/** the recipient as shown: its credential becomes `…` */
export function shownRecipient<T extends string | null | undefined>(to: T): T {
  if (typeof to !== 'string' || !to.includes(MARK)) return to;
  return `${to.slice(0, to.indexOf(MARK))}${MARK}…` as T;
}
