/**
 * What a reload did: the settings that changed, those that wait for a restart, or why it was
 * refused. The port `POST /admin/reload` takes from the gateway, which implements the reload.
 */
export interface ReloadResult {
  ok: boolean;
  /** config keys whose new value is in effect (e.g. `hooks.mappings`, `agents.list`, `mappings/`) */
  changed: string[];
  /** changed keys that only a restart applies; the running process keeps their old value */
  restartRequired: string[];
  /** why the new config was refused (the running one stays) */
  faults?: string[];
  /** what the applied config loaded with but deserves attention (logged, and shown on the Overview) */
  warnings?: string[];
}
