/**
 * A delivery's recipient may carry, after `#token=`, a credential good for one reply (Discord's
 * interaction token, valid 15 minutes). Once the delivery is final (delivered, failed, abandoned)
 * the credential has no use left and is not kept: the stored recipient becomes its shown form,
 * `interaction:<app>:<id>#token=…`. Each adapter writes it in the statement that makes the row
 * final, so no state holds a final row with its credential. A run's stored action (its `to`) is
 * scrubbed the same way once its reply's delivery is final, or the credential's life is over
 * (RunsRepo.scrubCredentials).
 */
export const CREDENTIAL_MARK = '#token=';
/** what stands for a credential: in views, and in a final row */
export const CREDENTIAL_SHOWN = `${CREDENTIAL_MARK}…`;

/**
 * `value`'s shown form, as SQL: `position` is the dialect's substring search (SQLite's instr,
 * PostgreSQL's strpos), both 1-based. A value with no credential, or one already scrubbed, stays
 * as it is.
 */
export function scrubbedSql(value: string, position: 'instr' | 'strpos'): string {
  const at = `${position}(${value}, '${CREDENTIAL_MARK}')`;
  return `CASE WHEN ${at} > 0 THEN substr(${value}, 1, ${at} + ${CREDENTIAL_MARK.length - 1}) || '…' ELSE ${value} END`;
}

/** `recipient = <its shown form>`, as SQL (see scrubbedSql) */
export function scrubRecipientSql(position: 'instr' | 'strpos'): string {
  return `recipient = ${scrubbedSql('recipient', position)}`;
}

/** SQL: `value` carries a credential not scrubbed yet (a real one never holds `…`: see plugins/discord/channel.ts) */
export function unscrubbedSql(value: string, position: 'instr' | 'strpos'): string {
  return `${position}(${value}, '${CREDENTIAL_MARK}') > 0 AND ${position}(${value}, '${CREDENTIAL_SHOWN}') = 0`;
}

/** a recipient whose credential was scrubbed: nothing can be sent to it again */
export const isScrubbedRecipient = (to: string | null | undefined): boolean => typeof to === 'string' && to.endsWith(CREDENTIAL_SHOWN);
