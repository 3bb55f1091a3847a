import { trimSlashes } from '../../mappings/hook-request.js';
import type { ReceiptInput, ReceiptRecorder } from '../../runtime/receipts/receipt-recorder.js';
import type { ExchangeSurface } from '../exchange/exchange-pipeline.js';
import { hooksPrefix } from '../../config/hooks-path.js';
import { answerHook, type AdmittedHook, type HookRouteDeps } from './answer-hook.js';
import { closeReceipt, openReceipt } from './hook-receipt.js';

export interface HookSurfaceDeps extends HookRouteDeps {
  /** when given, every webhook request leaves a receipt */
  receipts?: ReceiptRecorder;
}

/**
 * The webhook surface as its exchange pipeline runs it, through either door: admitted at once
 * (its token or signature is the route's to check, once it knows the path's mappings), with a
 * receipt opened for every request whatever its outcome, refused, failed, skipped or dispatched,
 * and recorded once its status is known.
 */
export function hookSurface(deps: HookSurfaceDeps): ExchangeSurface<AdmittedHook> {
  const prefix = hooksPrefix(deps.config.hooks.path);
  const { receipts } = deps;
  return {
    admit(x) {
      const path = trimSlashes(x.path.slice(prefix.length));
      // the notes are the receipt's input itself, filled in as the route learns (no copy at the end)
      return { path, notes: receipts && openReceipt(x.requestId, x.method, path) };
    },
    answer: (x, call) => answerHook(x, call, deps),
    record(x, call, status, error) {
      if (!receipts || !call?.notes) return;
      closeReceipt(receipts, call.notes as ReceiptInput, { status, error, clientAddress: x.clientAddress, started: x.started, mappingId: x.mappingId, bodyBytes: x.bodyBytes });
    },
  };
}
