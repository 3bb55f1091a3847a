import { adminDocs } from './admin-docs.js';
import { consoleDocs } from './console-docs.js';
import { filesDocs } from './files-docs.js';
import { hooksDocs } from './hooks-docs.js';
import { platformDocs } from './platform-docs.js';
import { responsesDocs } from './responses-docs.js';
import type { RouteDoc } from './route-doc.js';
import { rootDocs } from './root-docs.js';

/**
 * Every documented route of herald, by surface. A new route group adds its `defineRoutes(...)`
 * list here; the test in test/http/openapi.e2e.test.ts fails while a served route is missing.
 */
export const routeDocs: RouteDoc[] = [...rootDocs, ...consoleDocs, ...hooksDocs, ...platformDocs, ...responsesDocs, ...filesDocs, ...adminDocs];
