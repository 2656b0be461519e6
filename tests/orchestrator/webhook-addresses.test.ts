import { classifyAddress, embeddedIpv4, ipv6Groups } from '../../functions/orchestrator/notify/ip-policy';
import { EndpointRefused, parseEndpointUrl, resolveEndpoint } from '../../functions/orchestrator/notify/endpoint-url';
import { nextAttemptAt, retryDelayMs } from '../../functions/orchestrator/notify/backoff';
import { signatureHeader, signPayload } from '../../functions/orchestrator/notify/signature';

/** Every range the webhook address policy refuses, at its edges, and public addresses just outside them. */
const TABLE: [string, string][] = [
  // IPv4: unspecified 0/8
  ['0.0.0.0', 'unspecified'],
  ['0.255.255.255', 'unspecified'],
  ['1.0.0.0', 'allowed'],
  // private 10/8
  ['9.255.255.255', 'allowed'],
  ['10.0.0.0', 'private'],
  ['10.0.0.1', 'private'],
  ['10.255.255.255', 'private'],
  ['11.0.0.0', 'allowed'],
  // CGNAT 100.64/10
  ['100.63.255.255', 'allowed'],
  ['100.64.0.0', 'cgnat'],
  ['100.100.100.200', 'cgnat'],
  ['100.127.255.255', 'cgnat'],
  ['100.128.0.0', 'allowed'],
  // loopback 127/8
  ['126.255.255.255', 'allowed'],
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback'],
  ['128.0.0.0', 'allowed'],
  // link-local 169.254/16 and the metadata address in it; Azure's platform address
  ['169.253.255.255', 'allowed'],
  ['169.254.0.1', 'link-local'],
  ['169.254.169.254', 'metadata'],
  ['169.254.169.253', 'link-local'],
  ['169.254.255.255', 'link-local'],
  ['169.255.0.0', 'allowed'],
  ['168.63.129.16', 'metadata'],
  ['168.63.129.17', 'allowed'],
  // private 172.16/12
  ['172.15.255.255', 'allowed'],
  ['172.16.0.0', 'private'],
  ['172.31.255.255', 'private'],
  ['172.32.0.0', 'allowed'],
  // IETF 192.0.0/24, documentation 192.0.2/24, 6to4 relay 192.88.99/24, private 192.168/16
  ['192.0.0.8', 'reserved'],
  ['192.0.1.1', 'allowed'],
  ['192.0.2.1', 'documentation'],
  ['192.88.99.1', 'reserved'],
  ['192.167.255.255', 'allowed'],
  ['192.168.0.0', 'private'],
  ['192.168.255.255', 'private'],
  ['192.169.0.0', 'allowed'],
  // benchmarking 198.18/15, documentation 198.51.100/24 and 203.0.113/24
  ['198.17.255.255', 'allowed'],
  ['198.18.0.0', 'benchmarking'],
  ['198.19.255.255', 'benchmarking'],
  ['198.20.0.0', 'allowed'],
  ['198.51.100.7', 'documentation'],
  ['203.0.113.9', 'documentation'],
  // multicast 224/4, reserved 240/4 with the broadcast address
  ['223.255.255.255', 'allowed'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.255', 'multicast'],
  ['240.0.0.1', 'reserved'],
  ['255.255.255.255', 'reserved'],
  // public
  ['8.8.8.8', 'allowed'],
  ['20.50.2.1', 'allowed'],
  // IPv6
  ['::', 'unspecified'],
  ['::1', 'loopback'],
  ['0:0:0:0:0:0:0:1', 'loopback'],
  ['fc00::1', 'private'],
  ['fd12:3456::1', 'private'],
  ['fd00:ec2::254', 'metadata'],
  ['fe80::1', 'link-local'],
  ['fe80::1%eth0', 'link-local'],
  ['febf:ffff::1', 'link-local'],
  ['fec0::1', 'reserved'],
  ['ff02::1', 'multicast'],
  ['ff05::2', 'multicast'],
  ['2001:db8::1', 'documentation'],
  ['3fff::1', 'documentation'],
  ['100::1', 'reserved'],
  ['2001::1', 'reserved'],
  ['2001:1ff::1', 'reserved'],
  ['::2', 'unspecified'],
  ['1::1', 'reserved'],
  ['4000::1', 'reserved'],
  ['2606:4700:4700::1111', 'allowed'],
  ['2a00:1450:4001:80b::200e', 'allowed'],
  ['2001:200::1', 'allowed'],
  ['[2606:4700:4700::1111]', 'allowed'],
  // IPv6 carrying IPv4: mapped (dotted and hex), compatible, NAT64, 6to4
  ['::ffff:127.0.0.1', 'loopback'],
  ['::ffff:7f00:1', 'loopback'],
  ['::FFFF:10.0.0.1', 'private'],
  ['::ffff:a9fe:a9fe', 'metadata'],
  ['::ffff:169.254.169.254', 'metadata'],
  ['::ffff:192.168.1.1', 'private'],
  ['::ffff:100.64.0.1', 'cgnat'],
  ['::ffff:8.8.8.8', 'allowed'],
  ['::127.0.0.1', 'loopback'],
  ['::10.1.2.3', 'private'],
  ['64:ff9b::10.0.0.1', 'private'],
  ['64:ff9b::8.8.8.8', 'allowed'],
  ['2002:7f00:1::', 'loopback'],
  ['2002:a9fe:a9fe::1', 'metadata'],
  ['2002:0808:0808::1', 'allowed'],
  // not addresses
  ['localhost', 'not-an-ip'],
  ['example.com', 'not-an-ip'],
  ['', 'not-an-ip'],
  ['256.1.1.1', 'not-an-ip'],
];

describe('the webhook address policy (node:net BlockList)', () => {
  it.each(TABLE)('%s is %s', (address, expected) => {
    const verdict = classifyAddress(address);
    expect(verdict.allowed ? 'allowed' : verdict.kind).toBe(expected);
  });

  it('expands IPv6 spellings to the same eight groups and finds the IPv4 address they carry', () => {
    expect(ipv6Groups('::ffff:127.0.0.1')).toEqual([0, 0, 0, 0, 0, 0xffff, 0x7f00, 1]);
    expect(ipv6Groups('::ffff:7f00:1')).toEqual(ipv6Groups('0:0:0:0:0:ffff:7f00:0001'));
    expect(ipv6Groups('1::')).toEqual([1, 0, 0, 0, 0, 0, 0, 0]);
    expect(ipv6Groups('10.0.0.1')).toBeUndefined();
    expect(embeddedIpv4(ipv6Groups('::ffff:a00:1')!)).toBe('10.0.0.1');
    expect(embeddedIpv4(ipv6Groups('::1')!)).toBeUndefined();
    expect(embeddedIpv4(ipv6Groups('2606:4700::1')!)).toBeUndefined();
  });
});

describe('the webhook URL (form at registration, address at every send)', () => {
  const strict = { allowPrivate: false };
  const local = { allowPrivate: true };
  const refusal = async (work: () => unknown) => {
    try {
      await work();
    } catch (error) {
      if (error instanceof EndpointRefused) return { reason: error.reason, kind: error.kind };
      throw error;
    }
    return undefined;
  };

  it.each([
    ['not a url', 'invalid'],
    ['http://example.com/hook', 'invalid'],
    ['ftp://example.com/hook', 'invalid'],
    ['https://user:pw@example.com/hook', 'invalid'],
    ['https://example.com/hook#frag', 'invalid'],
    [`https://example.com/${'a'.repeat(2100)}`, 'invalid'],
  ])('%s is refused by its form', async (url, reason) => {
    expect(await refusal(() => parseEndpointUrl(url, strict))).toEqual({ reason, kind: undefined });
  });

  it('http is allowed only under the local setting', () => {
    expect(parseEndpointUrl('http://127.0.0.1:8080/hook', local).port).toBe('8080');
    expect(parseEndpointUrl('https://example.com/hook?x=1', strict).toString()).toBe('https://example.com/hook?x=1');
  });

  it.each([
    ['https://2130706433/', 'loopback'],
    ['https://0x7f.1/', 'loopback'],
    ['https://[::ffff:127.0.0.1]/', 'loopback'],
    ['https://169.254.169.254/latest/meta-data/', 'metadata'],
    ['https://[fd00:ec2::254]/', 'metadata'],
  ])('%s (a numeric spelling) is judged by the address it means: %s', async (raw, kind) => {
    expect(await refusal(() => resolveEndpoint(parseEndpointUrl(raw, strict), strict))).toEqual({ reason: 'refused', kind });
  });

  it('a name is resolved and refused when any of its addresses is refused; the local setting lets it through', async () => {
    const url = parseEndpointUrl('https://hooks.example.com/x', strict);
    const mixed = async () => [
      { address: '93.184.216.34', family: 4 },
      { address: '10.0.0.5', family: 4 },
    ];
    expect(await refusal(() => resolveEndpoint(url, strict, mixed))).toEqual({ reason: 'refused', kind: 'private' });
    expect(await resolveEndpoint(url, local, mixed)).toEqual({ address: '93.184.216.34', family: 4 });
    const good = async () => [{ address: '2606:4700::6810:1', family: 6 }];
    expect(await resolveEndpoint(url, strict, good)).toEqual({ address: '2606:4700::6810:1', family: 6 });
    expect(await refusal(() => resolveEndpoint(url, strict, async () => []))).toEqual({ reason: 'unresolvable', kind: undefined });
    expect(await refusal(() => resolveEndpoint(url, strict, () => Promise.reject(new Error('ENOTFOUND'))))).toEqual({
      reason: 'unresolvable',
      kind: undefined,
    });
    // The system resolver: localhost is a loopback name.
    expect(await refusal(() => resolveEndpoint(parseEndpointUrl('https://localhost/', strict), strict))).toEqual({ reason: 'refused', kind: 'loopback' });
  });
});

describe('the backoff and the signature', () => {
  it('waits 1 minute, doubling, at most 6 hours apart, for 3 days', () => {
    expect([1, 2, 3, 9, 10, 11, 30].map((n) => retryDelayMs(n) / 60_000)).toEqual([1, 2, 4, 256, 360, 360, 360]);
    const start = new Date('2026-01-01T00:00:00Z');
    let now = start;
    let tries = 0;
    for (let next = nextAttemptAt(start, ++tries, now); next; next = nextAttemptAt(start, ++tries, now)) now = next;
    expect(tries).toBe(20);
    expect(now.getTime() - start.getTime()).toBeLessThanOrEqual(3 * 24 * 3600_000);
    expect(now.getTime() - start.getTime()).toBeGreaterThan(3 * 24 * 3600_000 - 6 * 3600_000);
  });

  it('signs "<t>.<body>" with HMAC-SHA256, one v1 per secret', () => {
    // A known answer: HMAC-SHA256("whsec_test", "1700000000.{}").
    const expected = require('node:crypto').createHmac('sha256', 'whsec_test').update('1700000000.{}').digest('hex');
    expect(signPayload('whsec_test', 1700000000, '{}')).toBe(expected);
    expect(signatureHeader(['whsec_a', 'whsec_b'], 1700000000, '{}')).toBe(
      `t=1700000000,v1=${signPayload('whsec_a', 1700000000, '{}')},v1=${signPayload('whsec_b', 1700000000, '{}')}`,
    );
  });
});
