import { BlockList, isIP } from 'node:net';

/**
 * Which addresses a webhook may be delivered to: public unicast only. Matched with Node's own
 * `net.BlockList` (no dependency); an IPv6 address carrying an IPv4 one (IPv4-mapped ::ffff:0:0/96,
 * IPv4-compatible ::/96, NAT64 64:ff9b::/96, 6to4 2002::/16) is judged by the IPv4 address it carries.
 */
export type RefusedKind =
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'cgnat'
  | 'metadata'
  | 'multicast'
  | 'reserved'
  | 'documentation'
  | 'benchmarking'
  | 'not-an-ip';

export type Classification = { allowed: true; address: string } | { allowed: false; kind: RefusedKind; address: string };

const list = (entries: [string, number][], type: 'ipv4' | 'ipv6'): BlockList => {
  const blocks = new BlockList();
  for (const [network, prefix] of entries) blocks.addSubnet(network, prefix, type);
  return blocks;
};

/** Checked in order: the first match names the kind (metadata before the link-local range that holds it). */
const IPV4_RULES: readonly [RefusedKind, BlockList][] = [
  // The cloud metadata services (AWS, Azure, GCP, OpenStack) and Azure's platform address (wireserver).
  [
    'metadata',
    list(
      [
        ['169.254.169.254', 32],
        ['168.63.129.16', 32],
      ],
      'ipv4',
    ),
  ],
  ['unspecified', list([['0.0.0.0', 8]], 'ipv4')],
  ['loopback', list([['127.0.0.0', 8]], 'ipv4')],
  [
    'private',
    list(
      [
        ['10.0.0.0', 8],
        ['172.16.0.0', 12],
        ['192.168.0.0', 16],
      ],
      'ipv4',
    ),
  ],
  ['link-local', list([['169.254.0.0', 16]], 'ipv4')],
  ['cgnat', list([['100.64.0.0', 10]], 'ipv4')],
  ['multicast', list([['224.0.0.0', 4]], 'ipv4')],
  [
    'documentation',
    list(
      [
        ['192.0.2.0', 24],
        ['198.51.100.0', 24],
        ['203.0.113.0', 24],
      ],
      'ipv4',
    ),
  ],
  ['benchmarking', list([['198.18.0.0', 15]], 'ipv4')],
  // IETF protocol assignments, the old 6to4 relay anycast, and 240/4 (with the broadcast address).
  [
    'reserved',
    list(
      [
        ['192.0.0.0', 24],
        ['192.88.99.0', 24],
        ['240.0.0.0', 4],
      ],
      'ipv4',
    ),
  ],
];

const IPV6_RULES: readonly [RefusedKind, BlockList][] = [
  ['metadata', list([['fd00:ec2::254', 128]], 'ipv6')],
  ['unspecified', list([['::', 128]], 'ipv6')],
  ['loopback', list([['::1', 128]], 'ipv6')],
  ['private', list([['fc00::', 7]], 'ipv6')],
  ['link-local', list([['fe80::', 10]], 'ipv6')],
  ['multicast', list([['ff00::', 8]], 'ipv6')],
  [
    'documentation',
    list(
      [
        ['2001:db8::', 32],
        ['3fff::', 20],
      ],
      'ipv6',
    ),
  ],
  // Discard-only 100::/64, IETF protocol assignments 2001::/23 (Teredo, benchmarking 2001:2::/48…), deprecated site-local fec0::/10.
  [
    'reserved',
    list(
      [
        ['100::', 64],
        ['2001::', 23],
        ['fec0::', 10],
      ],
      'ipv6',
    ),
  ],
];

/** Global unicast IPv6 (2000::/3): anything outside it is refused as reserved. */
const GLOBAL_UNICAST = list([['2000::', 3]], 'ipv6');

/** The eight 16-bit groups of an IPv6 address (a zone id already removed), or undefined when it is not one. */
export function ipv6Groups(address: string): number[] | undefined {
  if (isIP(address) !== 6) return undefined;
  let text = address.toLowerCase();
  // A trailing dotted IPv4 part (::ffff:127.0.0.1) as its two groups.
  const last = text.slice(text.lastIndexOf(':') + 1);
  if (isIP(last) === 4) {
    const [a, b, c, d] = last.split('.').map(Number);
    text = `${text.slice(0, -last.length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::');
  const part = (s: string | undefined) => (s ? s.split(':').map((g) => parseInt(g, 16)) : []);
  const left = part(head);
  const right = part(tail);
  const groups = tail === undefined ? left : [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
  return groups.length === 8 ? groups : undefined;
}

const v4 = (hi: number, lo: number) => `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;
const v6 = (groups: number[]) => groups.map((g) => g.toString(16)).join(':');

/** The IPv4 address an IPv6 one carries (mapped, compatible, NAT64, 6to4), if it carries one. */
export function embeddedIpv4(groups: number[]): string | undefined {
  const zero = (from: number, to: number) => groups.slice(from, to).every((g) => g === 0);
  if (zero(0, 5) && groups[5] === 0xffff) return v4(groups[6], groups[7]); // ::ffff:a.b.c.d
  if (zero(0, 6) && (groups[6] !== 0 || groups[7] > 1)) return v4(groups[6], groups[7]); // ::a.b.c.d (not :: or ::1)
  if (groups[0] === 0x64 && groups[1] === 0xff9b && zero(2, 6)) return v4(groups[6], groups[7]); // 64:ff9b::a.b.c.d
  if (groups[0] === 0x2002) return v4(groups[1], groups[2]); // 2002:aabb:ccdd::
  return undefined;
}

function classifyIpv4(address: string): Classification {
  for (const [kind, blocks] of IPV4_RULES) if (blocks.check(address, 'ipv4')) return { allowed: false, kind, address };
  return { allowed: true, address };
}

/**
 * Whether a webhook may be delivered to `address` (an IPv4 or IPv6 literal, a zone id allowed):
 * public unicast only, an IPv6 address carrying an IPv4 one judged by that one.
 */
export function classifyAddress(raw: string): Classification {
  const unbracketed = raw.replace(/^\[|\]$/g, '');
  // A zone id (fe80::1%eth0) names an interface, not another address.
  const zone = unbracketed.indexOf('%');
  const address = zone >= 0 ? unbracketed.slice(0, zone) : unbracketed;
  const family = isIP(address);
  if (family === 4) return classifyIpv4(address);
  const groups = family === 6 ? ipv6Groups(address) : undefined;
  if (!groups) return { allowed: false, kind: 'not-an-ip', address: raw };
  const carried = embeddedIpv4(groups);
  if (carried) {
    const inner = classifyIpv4(carried);
    return inner.allowed ? { allowed: true, address } : { ...inner, address };
  }
  const canonical = v6(groups);
  for (const [kind, blocks] of IPV6_RULES) if (blocks.check(canonical, 'ipv6')) return { allowed: false, kind, address };
  if (!GLOBAL_UNICAST.check(canonical, 'ipv6')) return { allowed: false, kind: 'reserved', address };
  return { allowed: true, address };
}
