import { member } from '../../shared/platform';

/** A stored result (cache.ts), with its bytes when they were read or just drawn. */
export interface CachedEntry {
  key: string;
  contentType: string;
  size: number;
  generatedAt: string;
  expiresAt: string;
  bytes?: Buffer;
}

/** How long an instance trusts its own index of an entry after renewing it; the blob's expiry is written this far beyond the lifetime. */
export const RENEW_INTERVAL_MS = 10 * 60_000;

const HOT_MAX_ENTRIES = 5000;
const HOT_MAX_BYTES = 64 * 1024 * 1024;

/** The instance's index of entries it has just stored or renewed, least recently used first. */
export class HotIndex {
  private readonly entries = new Map<string, { entry: CachedEntry; renewedAt: number }>();
  private bytes = 0;

  forget(key: string): void {
    const found = this.entries.get(key);
    if (!found) return;
    this.bytes -= found.entry.bytes?.length ?? 0;
    this.entries.delete(key);
  }

  remember(entry: CachedEntry, now: number): void {
    this.forget(entry.key);
    this.entries.set(entry.key, { entry, renewedAt: now });
    this.bytes += entry.bytes?.length ?? 0;
    // Map order is insertion order: the first keys are the least recently used.
    for (const key of this.entries.keys()) {
      if (this.entries.size <= HOT_MAX_ENTRIES && this.bytes <= HOT_MAX_BYTES) break;
      this.forget(key);
    }
  }

  find(key: string, withBytes: boolean, now: number): CachedEntry | undefined {
    const found = this.entries.get(key);
    if (!found) return undefined;
    const age = now - found.renewedAt;
    if (age < 0 || age >= RENEW_INTERVAL_MS || (withBytes && !found.entry.bytes)) return undefined;
    this.entries.delete(key);
    this.entries.set(key, found);
    return found.entry;
  }
}

const SEEN_MAX_KEYS = 20_000;

/**
 * Keys this instance was asked for, with when, oldest first: a cache admission filter. A chart is
 * stored on its second request within the renewal interval, not its first (see `cachedOnRepeat`).
 */
export class SeenKeys {
  private readonly seenAt = new Map<string, number>();

  /** Records that `key` was asked for now; true when it was not asked for within the renewal interval before. */
  firstSight(key: string, now: number): boolean {
    const last = this.seenAt.get(key);
    this.seenAt.delete(key);
    this.seenAt.set(key, now);
    if (this.seenAt.size > SEEN_MAX_KEYS) this.seenAt.delete(this.seenAt.keys().next().value!);
    return last === undefined || now - last >= RENEW_INTERVAL_MS || now < last;
  }
}

/** The platform's index: released with the service (a later start may point at another storage account). */
export const HOT_INDEX = member('visual hot cache index', () => new HotIndex());
/** The platform's record of the keys it was asked for. */
export const SEEN_KEYS = member('visual seen cache keys', () => new SeenKeys());
