import fs from 'node:fs';
import path from 'node:path';
import { serviceUrl, type ServiceName } from '../config';
import type { FunctionDefinition } from '../functions';
import { Code, notFound } from './errors';
import { json } from './handler';
import { openApiDocument } from './openapi';
import { op, PUBLIC, routes, type RoutedFunction } from './route';
import { anyObject, obj, str } from './schemas';

/** Swagger UI's static files, from the package (nothing is fetched from the internet). */
const SWAGGER_UI_DIR = path.dirname(require.resolve('swagger-ui-dist/package.json'));
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

/** The page's script (no inline script: the page's CSP allows only its own files). */
const INIT_SCRIPT = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({ url: document.body.dataset.spec, dom_id: '#reference', deepLinking: true, tryItOutEnabled: false });
});
`;

const page = (service: ServiceName) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${service} service API reference</title>
<link rel="icon" href="docs/favicon-32x32.png">
<link rel="stylesheet" href="docs/swagger-ui.css">
</head>
<body data-spec="openapi.json">
<main id="reference"><noscript>The API reference needs JavaScript; the document itself is <a href="openapi.json">openapi.json</a>.</noscript></main>
<script src="docs/swagger-ui-bundle.js"></script>
<script src="docs/init.js"></script>
</body>
</html>
`;

// Swagger UI sets style attributes on its elements; everything else comes from this origin only.
const DOCS_CSP = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'";

const cache = new Map<string, Buffer>();
function asset(file: string): Buffer {
  let bytes = cache.get(file);
  if (!bytes) {
    bytes = fs.readFileSync(path.join(SWAGGER_UI_DIR, file));
    cache.set(file, bytes);
  }
  return bytes;
}

/** Each service's document builder, registered when the service's module loads (its contractRoutes call). */
const DOCUMENTS = new Map<ServiceName, (server: string) => object>();

/**
 * The OpenAPI document of a loaded service, built in process (npm run client:generate loads every
 * service and writes the typed client from these); `server` is the service's base URL.
 */
export function serviceDocument(service: ServiceName, server: string = serviceUrl(service)): object {
  const build = DOCUMENTS.get(service);
  if (!build) throw new Error(`the ${service} service is not loaded: load it (functions/registry) before asking for its document`);
  return build(server);
}

/**
 * Every service's contract routes: `<service>/openapi.json`, the OpenAPI 3.1 document generated
 * from the service's own route table, and `<service>/docs`, an API reference page (Swagger UI,
 * served from the package). `functions` is the service's table, the contract routes excepted.
 */
export function contractRoutes(service: ServiceName, description: string, functions: () => readonly FunctionDefinition[]): RoutedFunction[] {
  const route = routes(service);
  let document: object | undefined;
  DOCUMENTS.set(service, (server) => openApiDocument(service, functions(), server, description));
  const openapi = op('The OpenAPI 3.1 document of this service, generated from its route table', async () =>
    json(200, (document ??= serviceDocument(service)), { 'Cache-Control': 'public, max-age=300' }),
  );
  const docsPage = op('The API reference page of this service (Swagger UI)', async () => ({
    status: 200,
    body: page(service),
    headers: { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-cache', 'Content-Security-Policy': DOCS_CSP },
  }));
  const docsAsset = op<undefined, unknown, unknown, { file: string }>('A static file of the API reference page', async ({ params }) => {
    if (params.file === 'init.js')
      return { status: 200, body: INIT_SCRIPT, headers: { 'Content-Type': 'text/javascript; charset=utf-8', 'Cache-Control': 'public, max-age=3600' } };
    const type = ASSETS[params.file];
    if (!type) throw notFound(`No file ${params.file} in the API reference`, Code.NOT_FOUND);
    return { status: 200, body: asset(params.file), headers: { 'Content-Type': type, 'Cache-Control': 'public, max-age=86400' } };
  });
  const FILE = obj({ file: str({ pattern: '^[A-Za-z0-9._-]{1,64}$' }) });
  return [
    route('openapi', 'GET', 'openapi.json', PUBLIC, { 200: anyObject({ description: 'An OpenAPI 3.1 document' }) }, openapi),
    route('docs', 'GET', 'docs', PUBLIC, { 200: { description: 'HTML page', content: { 'text/html': str() } } }, docsPage),
    route(
      'docs-asset',
      'GET',
      'docs/{file}',
      PUBLIC,
      { params: FILE, 200: { description: 'A static file', content: { 'text/css': str(), 'text/javascript': str(), 'image/png': str({ format: 'binary' }) } } },
      docsAsset,
    ),
  ];
}
