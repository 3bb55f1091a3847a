import { CREDENTIAL_MARK, CREDENTIAL_SHOWN, isScrubbedRecipient } from '../../store/queries/recipient-scrub.js';

export { isScrubbedRecipient };

/**
 * How long a recipient's credential opens its one reply: "Interaction tokens are valid for 15
 * minutes" (https://discord.com/developers/docs/interactions/receiving-and-responding#followup-messages).
 * Counted from the delivery's queueing, which comes after the interaction was made: a pending
 * delivery older than this can no longer be sent.
 */
export const CREDENTIAL_LIFE_MS = 15 * 60_000;

/** the error of a delivery whose credential expired before it was sent */
export const CREDENTIAL_EXPIRED = 'the interaction token expired before the reply was sent (Discord keeps it 15 minutes)';

/**
 * the error of a delivery whose recipient's credential was scrubbed before it was sent: a run's
 * action kept none (its reply was final, or the credential's life over), or a retained payload
 * replayed, which keeps none
 */
export const CREDENTIAL_GONE = 'the interaction token is no longer kept (herald drops it once the reply is final or its 15 minutes are over, and a retained payload keeps none): nothing was sent';

/**
 * A recipient may carry, after `#token=`, a credential the channel needs for that one reply
 * (Discord's interaction token, which opens the interaction's messages for 15 minutes). The
 * credential is never shown (admin API, console, the main session's events), such a recipient is
 * never remembered as a route, and the store keeps it only while the delivery may still be sent:
 * a final row's recipient is its shown form (src/store/queries/recipient-scrub.ts).
 */
export function carriesCredential(to: string | null | undefined): boolean {
  return typeof to === 'string' && to.includes(CREDENTIAL_MARK) && !isScrubbedRecipient(to);
}

/** the recipient as shown: its credential becomes `…` */
export function shownRecipient<T extends string | null | undefined>(to: T): T {
  if (typeof to !== 'string' || !to.includes(CREDENTIAL_MARK)) return to;
  return `${to.slice(0, to.indexOf(CREDENTIAL_MARK))}${CREDENTIAL_SHOWN}` as T;
}
