/** a fault line `path: message` split; mapping faults (`mapping "x" (...)`) have no key path */
export function splitFault(fault: string): { path?: string; message: string } {
  const at = fault.indexOf(': ');
  const head = at < 0 ? '' : fault.slice(0, at);
  if (!head || /[\s"]/.test(head)) return { message: fault };
  return { path: head, message: fault.slice(at + 2) };
}
