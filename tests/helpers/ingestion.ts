/**
 * A local stand-in for Application Insights' ingestion endpoint: an HTTPS server that takes what
 * the Azure Monitor exporter sends (POST /v2.1/track, a JSON array of envelopes, gzipped or not)
 * and answers as the service does. The exporter speaks only HTTPS, so the server has a self-signed
 * certificate for 127.0.0.1 (tests/fixtures/tls), which a process trusts through NODE_EXTRA_CA_CERTS
 * (`INGESTION_CA`).
 */
import fs from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import zlib from 'node:zlib';
import { PROJECT_ROOT } from '../../devhost/paths';

const TLS = path.join(PROJECT_ROOT, 'tests', 'fixtures', 'tls');
/** The certificate a process must trust (NODE_EXTRA_CA_CERTS) to send to the stand-in. */
export const INGESTION_CA = path.join(TLS, 'ingestion-cert.pem');

/** One telemetry item as the exporter sends it. */
export interface Envelope {
  name: string;
  iKey?: string;
  tags: Record<string, string>;
  data: {
    baseType: string;
    baseData: {
      id?: string;
      name?: string;
      message?: string;
      url?: string;
      type?: string;
      target?: string;
      data?: string;
      responseCode?: string;
      resultCode?: string;
      properties?: Record<string, string>;
    };
  };
}

export interface Ingestion {
  url: string;
  /** Every envelope received, in order. */
  envelopes: Envelope[];
  /** Every request's method and path. */
  paths: string[];
  close(): Promise<void>;
}

export function startIngestion(): Promise<Ingestion> {
  const envelopes: Envelope[] = [];
  const paths: string[] = [];
  const tls = { cert: fs.readFileSync(INGESTION_CA), key: fs.readFileSync(path.join(TLS, 'ingestion-key.pem')) };
  const server = https.createServer(tls, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      paths.push(`${req.method} ${req.url}`);
      let body = Buffer.concat(chunks);
      if (req.headers['content-encoding'] === 'gzip') body = zlib.gunzipSync(body);
      const items = JSON.parse(body.toString('utf8')) as Envelope[];
      envelopes.push(...items);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ itemsReceived: items.length, itemsAccepted: items.length, errors: [] }));
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
        envelopes,
        paths,
        close: () => new Promise((r) => server.close(() => r())),
      }),
    ),
  );
}
