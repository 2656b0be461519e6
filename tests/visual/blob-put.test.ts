// The render API's cache write: one Put Blob through Node's http client (shared/blob-put.ts),
// against a real Azurite. What it writes is what the SDK reads (content type, metadata, bytes); a
// key already taken is reported and left alone; Azurite checks its Shared Key signature (a wrong key
// is refused, never taken for written); a connection string's SAS is used as given; and when Storage
// is down or refuses the write, the render API answers the documented 500 with no imageUrl, so no
// caller is handed the URL of a blob that was not written.
import { dataStorage, dataStorageConnection, storageAccount } from '../../shared/storage-account';
import { BLOB_VERSION, sharedKeyStringToSign, StorageRestError } from '../../shared/storage-rest';
import { Platform, runInPlatform } from '../../shared/platform';
import { container, STORAGE } from '../../shared/storage';
import { vendored } from '../../shared/vendor';
import { startTestHost, type TestHost } from '../helpers/host';
import { barChart, fetchFresh, postJson, visualToken } from './helpers';

let first: TestHost;
let second: TestHost;
beforeAll(async () => {
  first = await startTestHost({ env: { SERVICES: 'visual' } });
  // Another instance of the service on the same storage account.
  second = await startTestHost({ env: { SERVICES: 'visual', AzureWebJobsStorage: first.azurite!.connectionString } });
});
afterAll(async () => {
  await second?.stop();
  await first?.stop();
});

const storageOf = (host: TestHost) => host.platform.get(STORAGE);
const SVG = 'image/svg+xml';
/** A platform like the host's but on another connection string. */
const platformOn = (host: TestHost, connectionString: string) => new Platform({ ...host.platform.settings, AzureWebJobsStorage: connectionString });

test('a put is read back by the SDK as written: bytes, content type and metadata', async () => {
  const bytes = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>');
  const outcome = await storageOf(first).putBlob('put-test', 'written', bytes, {
    contentType: SVG,
    metadata: { generatedat: '2026-11-29T00:00:00.000Z', expiresat: '2026-11-29T12:00:00.000Z' },
    ifAbsent: true,
  });
  expect(outcome).toBe('created');
  const blob = await runInPlatform(first.platform, async () => (await container('put-test')).getBlockBlobClient('written'));
  const props = await blob.getProperties();
  expect(props.contentType).toBe(SVG);
  expect(props.metadata).toEqual({ generatedat: '2026-11-29T00:00:00.000Z', expiresat: '2026-11-29T12:00:00.000Z' });
  expect(await blob.downloadToBuffer()).toEqual(bytes);
});

test('ifAbsent: a taken name is reported as existing and its blob left as it was; without it the blob is replaced', async () => {
  const storage = storageOf(first);
  await storage.putBlob('put-test', 'taken', Buffer.from('one'), { contentType: 'text/plain', ifAbsent: true });
  expect(await storage.putBlob('put-test', 'taken', Buffer.from('two'), { contentType: 'text/plain', ifAbsent: true })).toBe('exists');
  const blob = await runInPlatform(first.platform, async () => (await container('put-test')).getBlockBlobClient('taken'));
  expect((await blob.downloadToBuffer()).toString()).toBe('one');
  expect(await storage.putBlob('put-test', 'taken', Buffer.from('three'), { contentType: 'text/plain' })).toBe('created');
  expect((await blob.downloadToBuffer()).toString()).toBe('three');
});

test('the Shared Key signature is checked: a wrong account key is refused with 403, not taken for written', async () => {
  const wrongKey = first.azurite!.connectionString.replace(/AccountKey=[^;]+/, `AccountKey=${Buffer.alloc(64, 7).toString('base64')}`);
  expect(wrongKey).not.toBe(first.azurite!.connectionString);
  // The container exists (made with the right key): only the put's own signature is wrong.
  await storageOf(first).container('put-test');
  const platform = platformOn(first, wrongKey);
  try {
    const error = await platform
      .get(STORAGE)
      .putBlob('put-test', 'forged', Buffer.from('x'), { contentType: 'text/plain' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StorageRestError);
    expect(error).toMatchObject({ statusCode: 403 });
  } finally {
    await platform.close();
  }
  const blob = await runInPlatform(first.platform, async () => (await container('put-test')).getBlockBlobClient('forged'));
  expect(await blob.exists()).toBe(false);
});

test('a connection string with a SAS: the put carries the SAS it was given', async () => {
  const sdk = vendored('@azure/storage-blob');
  await storageOf(first).container('put-test');
  const accountKey = /AccountKey=([^;]+)/.exec(first.azurite!.connectionString)![1];
  const accountName = /AccountName=([^;]+)/.exec(first.azurite!.connectionString)![1];
  const blobEndpoint = /BlobEndpoint=([^;]+)/.exec(first.azurite!.connectionString)![1];
  const sas = sdk
    .generateAccountSASQueryParameters(
      {
        expiresOn: new Date(Date.now() + 3600_000),
        permissions: sdk.AccountSASPermissions.parse('rwc'),
        resourceTypes: sdk.AccountSASResourceTypes.parse('sco').toString(),
        services: sdk.AccountSASServices.parse('b').toString(),
      },
      new sdk.StorageSharedKeyCredential(accountName, accountKey),
    )
    .toString();
  const platform = platformOn(first, `BlobEndpoint=${blobEndpoint};SharedAccessSignature=${sas}`);
  try {
    expect(await platform.get(STORAGE).putBlob('put-test', 'by-sas', Buffer.from('sas'), { contentType: 'text/plain', ifAbsent: true })).toBe('created');
  } finally {
    await platform.close();
  }
  const blob = await runInPlatform(first.platform, async () => (await container('put-test')).getBlockBlobClient('by-sas'));
  expect((await blob.downloadToBuffer()).toString()).toBe('sas');
});

test('the string to sign is the documented one: standard headers in order, x-ms-* sorted, then /account/path and the query sorted', () => {
  expect(sharedKeyStringToSign('GET', 'acct', '/acct/', { 'x-ms-date': 'D' }, { restype: 'service', comp: 'properties' })).toBe(
    `GET\n\n\n\n\n\n\n\n\n\n\n\nx-ms-date:D\n/acct/acct/\ncomp:properties\nrestype:service`,
  );
  const text = sharedKeyStringToSign('PUT', 'acct', '/acct/c/b', {
    'x-ms-version': BLOB_VERSION,
    'x-ms-date': 'Sun, 29 Nov 2026 00:00:00 GMT',
    'x-ms-blob-type': 'BlockBlob',
    'content-type': 'image/svg+xml',
    'content-length': '12',
    'if-none-match': '*',
    'x-ms-meta-b': '2',
    'x-ms-meta-a': ' 1 ',
  });
  expect(text).toBe(
    [
      'PUT',
      '',
      '',
      '12',
      '',
      'image/svg+xml',
      '',
      '',
      '',
      '*',
      '',
      '',
      `x-ms-blob-type:BlockBlob\nx-ms-date:Sun, 29 Nov 2026 00:00:00 GMT\nx-ms-meta-a:1\nx-ms-meta-b:2\nx-ms-version:${BLOB_VERSION}\n/acct/acct/c/b`,
    ].join('\n'),
  );
});

test('an uncached SVG through the render API: its imageUrl answers at once from another instance, with the bytes answered', async () => {
  const res = await postJson(
    first,
    '/visual/api/v1/charts/render',
    { charts: [barChart('fresh', { title: 'put at once' })], format: 'svg' },
    visualToken(first),
  );
  expect(res.status).toBe(200);
  expect(res.headers.get('x-cache')).toBe('MISS');
  const { charts } = (await res.json()) as { charts: { imageUrl: string; metadata: { size: number } }[] };
  const key = charts[0].imageUrl.split('/').pop()!;
  const elsewhere = await fetchFresh(`${second.url}/visual/cache/${key}`);
  expect(elsewhere.status).toBe(200);
  expect(elsewhere.headers.get('content-type')).toBe(SVG);
  const bytes = Buffer.from(await elsewhere.arrayBuffer());
  expect(bytes.length).toBe(charts[0].metadata.size);
  expect(bytes.toString('utf8')).toMatch(/^<\?xml|^<svg/);
});

test('a container deleted under the service is made again by the next write, whose URL resolves', async () => {
  const host = await startTestHost({ env: { SERVICES: 'visual', VISUAL_CACHE_CONTAINER: 'deleted-cache' } });
  try {
    const token = visualToken(host);
    const body = (title: string) => ({ charts: [barChart('again', { title })], format: 'svg' });
    expect((await postJson(host, '/visual/api/v1/charts/render', body('made the container'), token)).status).toBe(200);
    await runInPlatform(host.platform, async () => (await container('deleted-cache')).delete());
    const res = await postJson(host, '/visual/api/v1/charts/render', body('after the delete'), token);
    expect(res.status).toBe(200);
    const { charts } = (await res.json()) as { charts: { imageUrl: string }[] };
    const key = charts[0].imageUrl.split('/').pop()!;
    const blob = await runInPlatform(host.platform, async () => (await container('deleted-cache')).getBlockBlobClient(key));
    expect(await blob.exists()).toBe(true);
  } finally {
    await host.stop();
  }
});

test('Storage refusing the write (a container name it refuses): 500 INTERNAL and no imageUrl', async () => {
  const host = await startTestHost({ env: { SERVICES: 'visual', VISUAL_CACHE_CONTAINER: 'Not_A_Valid_Container' } });
  try {
    const res = await postJson(host, '/visual/api/v1/charts/render', { charts: [barChart('refused')], format: 'svg' }, visualToken(host));
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(JSON.parse(text)).toMatchObject({ error: 'Internal server error', code: 'INTERNAL' });
    expect(text).not.toMatch(/imageUrl|\/visual\/cache\/|InvalidResourceName|Not_A_Valid/);
  } finally {
    await host.stop();
  }
});

test('the account is read from the connection string as the SDKs read it', () => {
  const dev = storageAccount({ AzureWebJobsStorage: 'UseDevelopmentStorage=true' } as never);
  expect(dev.name).toBe('devstoreaccount1');
  expect(dev.endpoints.blob.href).toBe('http://127.0.0.1:10000/devstoreaccount1');
  expect(dev.endpoints.table.href).toBe('http://127.0.0.1:10002/devstoreaccount1');
  const azure = storageAccount({
    AzureWebJobsStorage: 'DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=AAAA;EndpointSuffix=core.windows.net',
  } as never);
  expect(azure).toMatchObject({ name: 'acct', key: Buffer.from('AAAA', 'base64') });
  expect(azure.endpoints.blob.href).toBe('https://acct.blob.core.windows.net/');
  const sas = storageAccount({ AzureWebJobsStorage: 'BlobEndpoint=https://acct.blob.core.windows.net/;SharedAccessSignature=?sv=1&sig=x' } as never);
  expect(sas).toMatchObject({ name: 'acct', sas: 'sv=1&sig=x' });
  const identity = storageAccount({ AzureWebJobsStorage__accountName: 'acct' } as never);
  expect(identity.key).toBeUndefined();
  expect(identity.endpoints.table.href).toBe('https://acct.table.core.windows.net/');
});

test("the data account is PLATFORM_STORAGE's when set (in Azure each app's AzureWebJobsStorage is its own host account), else AzureWebJobsStorage's", () => {
  const host = { AzureWebJobsStorage__accountName: 'sthvis' };
  expect(storageAccount({ ...host, PLATFORM_STORAGE__accountName: 'stdata' } as never).endpoints.blob.href).toBe('https://stdata.blob.core.windows.net/');
  expect(dataStorage({ ...host, PLATFORM_STORAGE__accountName: 'stdata' } as never)).toEqual({ connection: 'PLATFORM_STORAGE', name: 'stdata' });
  // The host's form alone (the queue trigger's connection) names the account too.
  expect(dataStorage({ ...host, PLATFORM_STORAGE__queueServiceUri: 'https://stdata.queue.core.windows.net/' } as never).name).toBe('stdata');
  expect(
    storageAccount({
      AzureWebJobsStorage: 'UseDevelopmentStorage=true',
      PLATFORM_STORAGE: 'AccountName=data;AccountKey=AAAA;BlobEndpoint=http://127.0.0.1:1/data',
    } as never).name,
  ).toBe('data');
  // Unset (npm start, the tests, func start with Azurite): the host's account holds the data too.
  expect(dataStorage(host as never)).toEqual({ connection: 'AzureWebJobsStorage', name: 'sthvis' });
  expect(dataStorage({ AzureWebJobsStorage: 'UseDevelopmentStorage=true', PLATFORM_STORAGE: ' ' } as never)).toEqual({
    connection: 'AzureWebJobsStorage',
    connectionString: 'UseDevelopmentStorage=true',
  });
  expect(dataStorageConnection(host as never)).toBe('AzureWebJobsStorage');
  expect(dataStorageConnection({ ...host, PLATFORM_STORAGE__accountName: 'stdata' } as never)).toBe('PLATFORM_STORAGE');
  expect(() => storageAccount({} as never)).toThrow(/PLATFORM_STORAGE: missing, and no AzureWebJobsStorage to fall back on/);
});

test('with PLATFORM_STORAGE set, the service writes its data there, not into the account of its AzureWebJobsStorage', async () => {
  // Its own Azurite is its AzureWebJobsStorage (the host's account); its data goes to the first host's.
  const apart = await startTestHost({ env: { SERVICES: 'visual', PLATFORM_STORAGE: first.azurite!.connectionString } });
  try {
    expect(apart.azurite).toBeDefined();
    expect(apart.azurite!.connectionString).not.toBe(first.azurite!.connectionString);
    const bytes = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><!-- apart --></svg>');
    expect(await storageOf(apart).putBlob('put-apart', 'data', bytes, { contentType: SVG })).toBe('created');
    const inData = await runInPlatform(first.platform, async () => (await container('put-apart')).getBlockBlobClient('data').downloadToBuffer());
    expect(inData).toEqual(bytes);
    const { BlobServiceClient } = vendored('@azure/storage-blob');
    const hostAccount = BlobServiceClient.fromConnectionString(apart.azurite!.connectionString);
    expect(await hostAccount.getContainerClient('put-apart').exists()).toBe(false);
  } finally {
    await apart.stop();
  }
});

test('Storage down: 500 INTERNAL at once (no retries while it is down), and no imageUrl', async () => {
  const host = await startTestHost({ env: { SERVICES: 'visual' } });
  try {
    const token = visualToken(host);
    const body = { charts: [barChart('down', { title: 'storage down' })], format: 'svg' };
    // The container exists and a connection is kept alive, as on a warm instance.
    expect((await postJson(host, '/visual/api/v1/charts/render', { ...body, charts: [barChart('warm')] }, token)).status).toBe(200);
    await host.azurite!.stop();
    const started = performance.now();
    const res = await postJson(host, '/visual/api/v1/charts/render', body, token);
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(JSON.parse(text)).toMatchObject({ error: 'Internal server error', code: 'INTERNAL' });
    expect(text).not.toMatch(/imageUrl|\/visual\/cache\//);
    // The SDK retried a closed port with back-off for seconds; one put fails as soon as the connection does.
    expect(performance.now() - started).toBeLessThan(2000);
  } finally {
    await host.stop();
  }
});
