import type { ToolCallRecord } from '../../store/port.js';
import type { ToolCallOptions } from '../../tools/tool-spec.js';
import type { ToolLedger } from './tool-ledger.js';

/**
 * A call's task options: a call that becomes a task at its server keeps the task's handle on its
 * record (a ledger that can), and a call that already did (made before a restart) polls that
 * task for its result instead of calling the tool again.
 */
export function taskOptions(ledger: ToolLedger, record: ToolCallRecord): Pick<ToolCallOptions, 'onTask' | 'resumeTask'> {
  return {
    ...(ledger.setTask && { onTask: (task) => ledger.setTask!(record.id, task) }),
    ...(record.task && { resumeTask: record.task }),
  };
}
