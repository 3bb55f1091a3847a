import type { RunRecord, RunWaitReason } from '../port.js';

/** a governed run's columns as RunRecord fields; an ungoverned run's record carries none of them */
export function governedFields(notBefore: number | string | null, waitedFor: RunWaitReason | null, coalescedCount: number | null): Pick<RunRecord, 'notBefore' | 'waitedFor' | 'coalescedCount'> {
  const fields: Pick<RunRecord, 'notBefore' | 'waitedFor' | 'coalescedCount'> = {};
  if (notBefore !== null) fields.notBefore = Number(notBefore);
  if (waitedFor !== null) fields.waitedFor = waitedFor;
  if (coalescedCount !== null) fields.coalescedCount = coalescedCount;
  return fields;
}
