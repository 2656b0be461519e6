/**
 * Builds the administration console (console/src, Preact) into dist/console, which the
 * orchestrator serves at <host>/orchestrator/console/ and which is part of the deployed package:
 * one JavaScript and one CSS file named by their content hash, and an index.html that loads them
 * with no inline code (the page's Content-Security-Policy allows none). Run by `npm run build`
 * after the type check of console/tsconfig.json.
 */
import fs from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';

const ROOT = path.resolve(__dirname, '..', '..');
export const CONSOLE_OUT = path.join(ROOT, 'dist', 'console');
/** Where the orchestrator mounts the console (its route is orchestrator/console/{*path}). */
const MOUNT = '/orchestrator/console/';

const FAVICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="#102a43"/><path d="M8 22V10h6a4 4 0 0 1 0 8h-6m8 0 5 4" stroke="#fff" stroke-width="3" fill="none"/></svg>\n`;

function indexHtml(js: string, css: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<base href="${MOUNT}">
<title>Report platform console</title>
<link rel="icon" href="favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="${css}">
<script type="module" src="${js}"></script>
</head>
<body>
<div id="app"><noscript>The administration console needs JavaScript.</noscript></div>
</body>
</html>
`;
}

export async function buildConsole(): Promise<{ js: string; css: string }> {
  fs.rmSync(CONSOLE_OUT, { recursive: true, force: true });
  const result = await build({
    entryPoints: [path.join(ROOT, 'console', 'src', 'main.tsx')],
    outdir: path.join(CONSOLE_OUT, 'assets'),
    entryNames: '[name]-[hash]',
    bundle: true,
    format: 'esm',
    target: ['es2020', 'chrome100', 'firefox100', 'safari15'],
    minify: true,
    jsx: 'automatic',
    jsxImportSource: 'preact',
    metafile: true,
    logLevel: 'warning',
  });
  const outputs = Object.keys(result.metafile.outputs).map((file) => path.relative(CONSOLE_OUT, path.resolve(ROOT, file)).split(path.sep).join('/'));
  const js = outputs.find((f) => f.endsWith('.js'));
  const css = outputs.find((f) => f.endsWith('.css'));
  if (!js || !css) throw new Error(`console build produced ${outputs.join(', ')}; expected one .js and one .css`);
  fs.writeFileSync(path.join(CONSOLE_OUT, 'index.html'), indexHtml(js, css));
  fs.writeFileSync(path.join(CONSOLE_OUT, 'favicon.svg'), FAVICON);
  return { js, css };
}

if (require.main === module) {
  buildConsole().catch((error) => {
    process.stderr.write(`${(error as Error).stack ?? error}\n`);
    process.exitCode = 1;
  });
}
