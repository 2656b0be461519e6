import fs from 'node:fs';
import path from 'node:path';
import { serviceUrl, type ServiceName } from '../config';
import type { FunctionDefinition } from '../functions';
import { onceEach } from '../once';
import { currentPlatform, member } from '../platform';
import { Code, notFound } from './errors';
import { json } from './handler';
import { openApiDocument } from './openapi';
import { op, PUBLIC, refusal, routes, type RoutedFunction } from './route';
import { anyObject, obj, str } from './schemas';

/** Swagger UI's static files, from the package (nothing is fetched from the internet). */
const SWAGGER_UI_DIR = path.dirname(require.resolve('swagger-ui-dist/package.json'));
/** The page's files and their types (read with Object.hasOwn: a name every object answers to, valueOf or constructor, is no file). */
const ASSETS: Readonly<Record<string, string>> = {
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

/** The files of the Swagger UI package, each read once (they change only with the package). */
const asset = onceEach((file: string): Buffer => fs.readFileSync(path.join(SWAGGER_UI_DIR, file)));

/** The route `<service>/openapi.json`, which also builds its document for callers in process. */
type OpenApiRoute = RoutedFunction & { document(server: string): object };

/**
 * The OpenAPI document of a service, built in process (npm run client:generate loads every
 * service and writes the typed client from these); `server` is the service's base URL.
 */
export function serviceDocument(service: { name: ServiceName; functions: readonly FunctionDefinition[] }, server: string = serviceUrl(service.name)): object {
  const route = service.functions.find((fn): fn is OpenApiRoute => 'document' in fn);
  if (!route) throw new Error(`the ${service.name} service has no contract routes (contractRoutes)`);
  return route.document(server);
}

/** The platform's documents by service, each built on first request (they name the platform's URLs). */
const DOCUMENTS = member('openapi documents', () => new Map<ServiceName, object>());

/**
 * Every service's contract routes: `<service>/openapi.json`, the OpenAPI 3.1 document generated
 * from the service's own route table, and `<service>/docs`, an API reference page (Swagger UI,
 * served from the package). `functions` is the service's table, the contract routes excepted.
 */
export function contractRoutes(service: ServiceName, description: string, functions: () => readonly FunctionDefinition[]): RoutedFunction[] {
  const route = routes(service);
  const document = (server: string) => openApiDocument(service, functions(), server, description);
  const openapi = op('The OpenAPI 3.1 document of this service, generated from its route table', async () => {
    const built = currentPlatform().get(DOCUMENTS);
    if (!built.has(service)) built.set(service, document(serviceUrl(service)));
    return json(200, built.get(service), { 'Cache-Control': 'public, max-age=300' });
  });
  const docsPage = op('The API reference page of this service (Swagger UI)', async () => ({
    status: 200,
    body: page(service),
    headers: { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-cache', 'Content-Security-Policy': DOCS_CSP },
  }));
  const docsAsset = op<undefined, unknown, unknown, { file: string }>('A static file of the API reference page', async ({ params }) => {
    if (params.file === 'init.js')
      return { status: 200, body: INIT_SCRIPT, headers: { 'Content-Type': 'text/javascript; charset=utf-8', 'Cache-Control': 'public, max-age=3600' } };
    const type = Object.hasOwn(ASSETS, params.file) ? ASSETS[params.file] : undefined;
    if (!type) throw notFound(`No file ${params.file} in the API reference`, Code.NOT_FOUND);
    return { status: 200, body: asset(params.file), headers: { 'Content-Type': type, 'Cache-Control': 'public, max-age=86400' } };
  });
  const openapiRoute: OpenApiRoute = {
    ...route('openapi', 'GET', 'openapi.json', PUBLIC, { 200: anyObject({ description: 'An OpenAPI 3.1 document' }) }, openapi),
    document,
  };
  const FILE = obj({ file: str({ pattern: '^[A-Za-z0-9._-]{1,64}$' }) });
  return [
    openapiRoute,
    route('docs', 'GET', 'docs', PUBLIC, { 200: { description: 'HTML page', content: { 'text/html': str() } } }, docsPage),
    route(
      'docs-asset',
      'GET',
      'docs/{file}',
      PUBLIC,
      {
        params: FILE,
        200: { description: 'A static file', content: { 'text/css': str(), 'text/javascript': str(), 'image/png': str({ format: 'binary' }) } },
        404: refusal([Code.NOT_FOUND], { when: 'No such file in the API reference.' }),
      },
      docsAsset,
    ),
  ];
}
