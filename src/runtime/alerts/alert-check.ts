import type { AlertRecord } from '../../store/port.js';

/** one incident a condition finds holding now */
export interface Incident {
  condition: string;
  incidentKey: string;
  cooldownKey: string;
  subject: string;
  summary: string;
}

/** a rule made ready to check */
export interface AlertCheck {
  condition: string;
  /** the incidents holding now */
  firing(now: number): Promise<Incident[]>;
  /**
   * whether an open incident this check owns still holds: true keeps it, false resolves it,
   * undefined when it is not this check's (another rule's, or one this process cannot judge)
   */
  holds(open: AlertRecord, firing: Incident[]): Promise<boolean | undefined>;
}
