import type { Store } from '../../src/store/port.js';

/**
 * How a contract case gets stores. Called with nothing: a store on a fresh, empty database.
 * Called with a store (open or already closed): another handle on that store's database, as a
 * second herald process sharing it, or the same process after a restart. The runner of each
 * adapter closes every store it handed out after each test and drops the databases.
 */
export type OpenStore = (shareWith?: Store) => Promise<Store>;
