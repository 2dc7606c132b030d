/**
 * Decides whether an IP address is an ordinary public one, by classifying the address rather than matching
 * its spelling. Built on ipaddr.js, which parses every IPv4 and IPv6 notation (short, octal, hex, decimal,
 * dotted-in-IPv6, zone ids) and knows the special-purpose ranges, so we do not keep a table of our own.
 *
 * An IPv6 address that carries an IPv4 one (IPv4-mapped, IPv4-compatible, 6to4, NAT64, Teredo) is judged
 * by both: some stacks and relays deliver it to the embedded IPv4 address, so `::7f00:1` must be refused
 * like `127.0.0.1`.
 */
import ipaddr from 'ipaddr.js';

/** The one range ipaddr.js gives to addresses no special-purpose registry claims. */
const PUBLIC_RANGE = 'unicast';

export interface AddressClassification {
  /** The address in normal form; an IPv4-mapped IPv6 address is given as the IPv4 address it maps to. */
  address: string;
  /**
   * ipaddr.js's name of the range: `unicast` for an ordinary public address, otherwise e.g. `loopback`,
   * `private`, `linkLocal`, `uniqueLocal`, `carrierGradeNat`, `reserved`, `6to4`, `rfc6052`, `teredo`.
   */
  range: string;
  /** The IPv4 address an IPv6 address carries, with its own range. */
  embedded?: { address: string; range: string };
  /** True only when the address (and the IPv4 address it carries, if any) is in the `unicast` range. */
  public: boolean;
}

/**
 * Classifies an IP address (brackets around IPv6 allowed, as in URL hosts). Undefined for anything that
 * is not an IP address, host names included.
 */
export function classifyAddress(address: string): AddressClassification | undefined {
  const bare = address.replace(/^\[(.*)\]$/, '$1');
  if (!ipaddr.isValid(bare)) return undefined;
  // process() turns an IPv4-mapped IPv6 address into the IPv4 address it maps to.
  const parsed = ipaddr.process(bare);
  if (parsed.kind() === 'ipv4') {
    const range = parsed.range();
    return { address: parsed.toString(), range, public: range === PUBLIC_RANGE };
  }
  const ipv6 = parsed as ipaddr.IPv6;
  const range: string = ipv6.range();
  const embedded = embeddedIpv4(ipv6, range);
  if (embedded === undefined) return { address: ipv6.toString(), range, public: range === PUBLIC_RANGE };
  const embeddedRange = embedded.range();
  return {
    address: ipv6.toString(),
    range,
    embedded: { address: embedded.toString(), range: embeddedRange },
    public: range === PUBLIC_RANGE && embeddedRange === PUBLIC_RANGE,
  };
}

/** True only for an ordinary public IP address; false for special ranges, names and anything unparsable. */
export function isPublicAddress(address: string): boolean {
  return classifyAddress(address)?.public ?? false;
}

function embeddedIpv4(address: ipaddr.IPv6, range: string): ipaddr.IPv4 | undefined {
  const parts = address.parts;
  const fromWords = (high: number, low: number) =>
    new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
  switch (range) {
    case '6to4':
      // 2002:AABB:CCDD::/48 is the 6to4 site of AA.BB.CC.DD.
      return fromWords(parts[1]!, parts[2]!);
    case 'teredo':
      // The Teredo client's IPv4 address sits in the last 32 bits, inverted so that NATs leave it alone.
      return fromWords(parts[6]! ^ 0xffff, parts[7]! ^ 0xffff);
    case 'rfc6052':
    case 'rfc6145':
      // NAT64 (64:ff9b::/96, and 64:ff9b:1::/48 with a /96 prefix) and SIIT put it in the last 32 bits.
      return fromWords(parts[6]!, parts[7]!);
  }
  // IPv4-compatible (::a.b.c.d, deprecated): ipaddr.js reads the dotted spelling as IPv4-mapped already,
  // but gives the hex spelling (::7f00:1) the plain unicast range.
  if (range === PUBLIC_RANGE && parts.slice(0, 6).every((part) => part === 0)) {
    return fromWords(parts[6]!, parts[7]!);
  }
  return undefined;
}
