import type { Logger } from 'pino';
import type { DeliveryRecord, Store } from '../../store/port.js';
import { carriesCredential, CREDENTIAL_LIFE_MS } from './recipient-credential.js';

/** the state key remembering up to when runs' actions had their expired credentials scrubbed (each sweep goes on from there) */
const SCRUBBED_TO_KEY = 'delivery:credentialsScrubbedTo';
/** how far a sweep reaches back before the last one's end: a run whose clock was read just before it */
const SWEEP_OVERLAP_MS = 60_000;

/**
 * A run's reply delivery became final: the credential its recipient carried has no use left, and
 * its run's action keeps it no longer either (the delivery's row was scrubbed in the write that
 * made it final). A failure is logged: the sweep of runs past the credential's life catches up.
 */
export async function scrubRunCredential(store: Store, d: Pick<DeliveryRecord, 'runId' | 'to'>, log: Logger): Promise<void> {
  if (!d.runId || !carriesCredential(d.to)) return;
  await store.runs.scrubCredentials([d.runId]).catch((err) => log.error({ err, runId: d.runId }, "scrubbing the run's interaction token failed"));
}

/**
 * The runs made before the credential's life: their actions keep none, whatever became of their
 * reply (answered in the hook's response, never queued, still waiting). Each sweep goes on from
 * the last one's end, so it reads a minute or two of runs, not the table.
 */
export async function scrubRunsPastCredentialLife(store: Store, now: number): Promise<void> {
  const before = now - CREDENTIAL_LIFE_MS;
  const from = Math.max(0, ((await store.state.get<number>(SCRUBBED_TO_KEY)) ?? 0) - SWEEP_OVERLAP_MS);
  if (from >= before) return;
  await store.runs.scrubCredentials([], { from, before });
  await store.state.set(SCRUBBED_TO_KEY, before);
}
