import path from 'node:path';

/** The function app's folder: host.json, package.json and dist/ are here. */
export const PROJECT_ROOT = path.resolve(__dirname, '..', '..');
