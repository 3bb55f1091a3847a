import type { Logger } from 'pino';
import type { HeraldConfig } from '../../config/schema.js';
import { ConfigError } from '../../errors.js';
import { version as heraldVersion } from '../../http/openapi/herald-version.js';
import { withChangeFeed } from '../../runtime/operator/change-feed.js';
import { resumeAfterCrash } from '../../runtime/resume-after-crash.js';
import { withDocumentSignals } from '../../runtime/mcp-endpoint/document-changes.js';
import { openStore } from '../../store/open-store.js';
import { flushTracing, startTracing } from '../../tracing/tracing.js';
import { resolveTracing, tracingDestination } from '../../tracing/tracing-options.js';
import type { Lifecycle } from '../lifecycle.js';

/**
 * What everything else stands on: tracing (before anything can start a span) and the store, with
 * the change feed and a crashed predecessor's claims taken back. Stopped last: the spans of the
 * work just finished are sent, then the store closes.
 */
export async function buildStorage(config: HeraldConfig, logger: Logger, lifecycle: Lifecycle) {
  // off, nothing of OpenTelemetry is loaded (tracing.ts)
  const tracing = resolveTracing(config.tracing, heraldVersion);
  if (tracing && 'fault' in tracing) throw new ConfigError([tracing.fault]);
  await startTracing(tracing);
  if (tracing) logger.info({ tracing: tracingDestination(tracing) }, 'tracing on');
  // every write of a receipt, run, event, message or delivery signals the console's live stream
  const store = withDocumentSignals(withChangeFeed(await openStore(config)));
  // before anything can take work or a request: a crashed predecessor's claims are taken back now
  await resumeAfterCrash(store, logger);
  lifecycle.add({ name: 'tracing', stop: () => flushTracing() }, { name: 'store', stop: () => store.close() });
  return { store };
}
