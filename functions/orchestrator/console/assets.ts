import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import type { ServiceContext } from '../../../shared/context';
import { member } from '../../../shared/platform';

/**
 * The administration console's built files (`npm run build` writes them to dist/console, which is
 * part of the deployed package). They are read once per process into memory (a few hundred KB),
 * each with its content type, a strong ETag and a gzip copy, so a request never touches the disk
 * and no request path ever reaches the file system: a path is only a key into this map.
 */
export interface Asset {
  body: Buffer;
  gzip: Buffer | null;
  contentType: string;
  etag: string;
  /** Built with a content hash in its name (assets/main-3F2A9C.js): cached for a year, never revalidated. */
  immutable: boolean;
}

export const CONSOLE_DIR = path.resolve(__dirname, '..', '..', '..', 'console');

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.woff2': 'font/woff2',
};
const COMPRESSIBLE: ReadonlySet<string> = new Set(['.html', '.js', '.css', '.svg', '.json', '.txt']);
/** esbuild's `[name]-[hash]` names: eight or more upper-case letters and digits before the extension. */
const HASHED_NAME = /-[A-Z0-9]{8,}\.[a-z0-9]+$/;

function walk(dir: string, prefix = ''): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) => (entry.isDirectory() ? walk(path.join(dir, entry.name), `${prefix}${entry.name}/`) : entry.isFile() ? [`${prefix}${entry.name}`] : []));
}

function load(dir: string): Map<string, Asset> {
  const assets = new Map<string, Asset>();
  if (!fs.existsSync(path.join(dir, 'index.html'))) return assets;
  for (const name of walk(dir)) {
    const ext = path.extname(name).toLowerCase();
    const contentType = CONTENT_TYPES[ext];
    if (!contentType) continue;
    const body = fs.readFileSync(path.join(dir, name));
    const etag = `"${crypto.createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
    const gzip = COMPRESSIBLE.has(ext) && body.length > 512 ? zlib.gzipSync(body, { level: 9 }) : null;
    assets.set(name, { body, gzip, contentType, etag, immutable: HASHED_NAME.test(name) });
  }
  return assets;
}

/** The platform's console files, by folder: read once (again while the folder holds no build yet). */
const CONSOLE_FILES = member('console files', () => new Map<string, Map<string, Asset>>());

/** The console's files by path relative to the console folder (`index.html`, `assets/main-XXXX.js`); empty when the console was not built. */
export function consoleAssets(ctx: Pick<ServiceContext, 'platform'>, dir = CONSOLE_DIR): Map<string, Asset> {
  const byDir = ctx.platform.get(CONSOLE_FILES);
  let assets = byDir.get(dir);
  if (!assets?.size) byDir.set(dir, (assets = load(dir)));
  return assets;
}

export type AssetLookup = { kind: 'file'; name: string; asset: Asset } | { kind: 'not-built' } | { kind: 'invalid'; reason: string } | { kind: 'not-found' };

/**
 * What a request path under `orchestrator/console/` names. Paths with `..`, `.`, backslashes,
 * control characters or empty segments are refused outright (they can only be attempts to leave
 * the folder); an extensionless path is a page of the single-page app and gets index.html; a path
 * with an extension that is not a built file is not found (a missing script must not get HTML).
 */
export function lookupAsset(requestPath: string | undefined, assets: Map<string, Asset>): AssetLookup {
  if (!assets.size) return { kind: 'not-built' };
  const rel = requestPath ?? '';
  if (rel.length > 512) return { kind: 'invalid', reason: 'path is longer than 512 characters' };
  // eslint-disable-next-line no-control-regex
  if (/[\\\x00-\x1f\x7f]/.test(rel)) return { kind: 'invalid', reason: 'path contains a backslash or a control character' };
  const segments = rel.split('/');
  if (segments.some((s, i) => s === '..' || s === '.' || (s === '' && i !== segments.length - 1))) {
    return { kind: 'invalid', reason: 'path segments "." and ".." and empty segments are not allowed' };
  }
  const name = rel === '' || rel.endsWith('/') ? `${rel}index.html` : rel;
  const asset = assets.get(name);
  if (asset) return { kind: 'file', name, asset };
  if (path.posix.extname(rel) === '') return { kind: 'file', name: 'index.html', asset: assets.get('index.html')! };
  return { kind: 'not-found' };
}
