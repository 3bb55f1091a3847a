import fs from 'node:fs';
import path from 'node:path';
import { PACKAGE_ROOT } from '../../utils/install-layout.js';

/** herald's version (package.json), as the OpenAPI documents give it */
export const version = (JSON.parse(fs.readFileSync(path.join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
