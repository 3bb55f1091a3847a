import net from 'node:net';

/** Is this listen address reachable from this machine only? (127.0.0.0/8, ::1, localhost) */
export function isLoopbackHost(host: string): boolean {
  const h = host.trim().toLowerCase().replace(/^\[|\]$/g, '');
  if (h === 'localhost' || h === '::1') return true;
  if (net.isIPv4(h)) return h.startsWith('127.');
  return h.startsWith('::ffff:127.');
}
