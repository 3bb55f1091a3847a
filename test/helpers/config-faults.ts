import { ConfigError } from '../../src/errors.js';

/** the faults a config load refused with; none when it loaded (any other error is thrown on) */
export async function configFaults(loading: Promise<unknown>): Promise<string[]> {
  try {
    await loading;
  } catch (error) {
    if (error instanceof ConfigError) return error.faults;
    throw error;
  }
  return [];
}
