/**
 * Keys met recently, for caches that keep an item only from its second read on. In a register of
 * 700,000 entities most reads are of an entity nobody reads again soon; keeping each of those would make
 * every read's document outlive the young generation of the heap (slow scavenges, then garbage in the
 * old generation) for no hits. Two generations of at most `size` keys each: a key is remembered for
 * between `size` and twice `size` further keys.
 */
export class RecentlySeen<K> {
  private current = new Set<K>();
  private previous = new Set<K>();

  constructor(private readonly size: number) {}

  /** Whether `key` was met recently; it is remembered either way. */
  again(key: K): boolean {
    if (this.current.has(key) || this.previous.has(key)) return true;
    if (this.current.size >= this.size) {
      this.previous = this.current;
      this.current = new Set();
    }
    this.current.add(key);
    return false;
  }
}
